import { defineCommand } from 'citty';
import { escapeControls } from '../../log/escape';
import type { SkippedEntry } from '../../store/catalog-types';
import { commonArgs, openContext } from '../settings';
import { printData } from '../output';

/**
 * The entries a sync left out, one line each (the platform's names and reasons escaped like the
 * logs: they are someone else's text on this terminal). Shared with `init`.
 */
export function describeSkippedLines(skipped: SkippedEntry[] | undefined): string[] {
  return (skipped ?? []).map((s) => `  left out: ${'credential_key' in s ? `credential ${s.credential_key}` : `design ${s.design_key}`} (${s.name}): ${s.reason}`).map(escapeControls);
}

export const syncCommand = defineCommand({
  meta: { name: 'sync', description: 'Reload credentials and designs from the platform into the cache' },
  args: { ...commonArgs },
  async run({ args, rawArgs }) {
    const ctx = openContext(args, rawArgs);
    try {
      const cache = await ctx.sync();
      const skipped = cache.skipped ?? [];
      // `skipped` only when the sync left something out, as in the POST /v1/sync answer.
      const out = { ok: true, credentials: cache.credentials.length, designs: cache.designs.length, synced_at: cache.synced_at, ...(skipped.length > 0 ? { skipped } : {}) };
      printData(Boolean(args.json), out, () => [`Synced: ${out.credentials} credential(s), ${out.designs} design(s)${skipped.length > 0 ? `; ${skipped.length} left out` : ''}`, ...describeSkippedLines(skipped)].join('\n'));
    } finally {
      await ctx.close();
    }
  },
});
