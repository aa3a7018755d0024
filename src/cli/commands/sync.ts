import { defineCommand } from 'citty';
import { commonArgs, openContext } from '../settings';
import { printData } from '../output';

export const syncCommand = defineCommand({
  meta: { name: 'sync', description: 'Reload credentials and designs from the platform into the cache' },
  args: { ...commonArgs },
  async run({ args, rawArgs }) {
    const ctx = openContext(args, rawArgs);
    try {
      const cache = await ctx.sync();
      const out = { ok: true, credentials: cache.credentials.length, designs: cache.designs.length, synced_at: cache.synced_at };
      printData(Boolean(args.json), out, () => `Synced: ${out.credentials} credential(s), ${out.designs} design(s)`);
    } finally {
      await ctx.close();
    }
  },
});
