import { defineCommand } from 'citty';
import { existsSync, rmSync } from 'node:fs';
import type { AppContext } from '../../context';
import { LocalsignError } from '../../errors/errors';
import { configureEmbeddedChip } from '../../platform/embedded-setup';
import type { ChipSettings } from '../../platform/embedded-config';
import { commonArgs, openContext } from '../settings';
import { printData, UsageError } from '../output';

export const initCommand = defineCommand({
  meta: { name: 'init', description: 'Pair this machine with a platform (--embedded: the local chip and designs in the config dir)' },
  args: {
    ...commonArgs,
    embedded: { type: 'boolean', description: 'Pair with the embedded platform (tenant 0)' },
    platform: { type: 'string', description: 'Remote platform URL (with --code)' },
    code: { type: 'string', description: 'Pairing code from the platform console' },
    'callback-url': { type: 'string', description: "This service's /receive URL as the platform reaches it" },
    'chip-module': { type: 'string', description: 'PKCS#11 module (.so/.dll/.dylib) of the signing chip' },
    'chip-token': { type: 'string', description: 'Token label on that module' },
    'chip-pin-env': { type: 'string', description: 'Name of the environment variable holding the chip PIN' },
    'chip-pin-file': { type: 'string', description: 'File holding the chip PIN' },
  },
  async run({ args, rawArgs }) {
    if (args.platform !== undefined || args.code !== undefined) {
      throw new LocalsignError('invalid', 'pairing with a remote platform (--platform/--code) is not available in this version; use --embedded');
    }
    if (!args.embedded) throw new UsageError('init needs --embedded (or --platform URL --code CODE)');
    const module = args['chip-module'] as string | undefined;
    const pinEnv = args['chip-pin-env'] as string | undefined;
    const pinFile = args['chip-pin-file'] as string | undefined;
    if (!module && (args['chip-token'] || pinEnv || pinFile)) throw new UsageError('--chip-token, --chip-pin-env and --chip-pin-file go with --chip-module');
    if (module && !pinEnv === !pinFile) throw new UsageError('--chip-module needs exactly one of --chip-pin-env VAR or --chip-pin-file FILE');
    const ctx = openContext(args, rawArgs);
    // A failed init (wrong module, PIN, token) must leave the machine as it was: otherwise the
    // chip settings point at the bad module and the next plain `init --embedded` mints new demo
    // keys, losing the old credentials.
    const restore = snapshot(ctx);
    try {
      const now = ctx.now();
      const chip: ChipSettings = module
        ? { kind: 'pkcs11', module, token_label: (args['chip-token'] as string | undefined) ?? null, pin_env: pinEnv ?? null, pin_file: pinFile ?? null }
        : { kind: 'soft' };
      configureEmbeddedChip({ embedded: ctx.embedded, softChipPath: ctx.paths.softChip, chip, now });
      ctx.pairing.replace({ pairing: { platform: 'embedded', tenant_id: 0, paired_at: now.toISOString() } });
      const cache = await ctx.sync();
      const out = { paired: true, platform: 'embedded', tenant_id: 0, chip: chip.kind, credentials: cache.credentials.length, designs: cache.designs.length, config_dir: ctx.paths.home };
      printData(Boolean(args.json), out, () =>
        `Paired with the embedded platform (tenant 0), ${chip.kind === 'soft' ? 'software chip' : `PKCS#11 chip ${module}`}: ${out.credentials} credential(s), ${out.designs} design(s) in ${out.config_dir}`,
      );
    } catch (error) {
      restore();
      throw error;
    } finally {
      await ctx.close();
    }
  },
});


/** The pairing and embedded settings as they are now, and a function that puts them back. */
function snapshot(ctx: AppContext): () => void {
  const embedded = existsSync(ctx.paths.embedded) ? structuredClone(ctx.embedded.get()) : null;
  const pairing = existsSync(ctx.paths.pairing) ? structuredClone(ctx.pairing.get()) : null;
  return () => {
    if (embedded) ctx.embedded.replace(embedded);
    else rmSync(ctx.paths.embedded, { force: true });
    if (pairing) ctx.pairing.replace(pairing);
    else rmSync(ctx.paths.pairing, { force: true });
  };
}
