import { defineCommand } from 'citty';
import { existsSync, rmSync } from 'node:fs';
import type { AppContext } from '../../context';
import { LocalsignError } from '../../domain/errors';
import { configureEmbeddedChip } from '../../platform/embedded-setup';
import { pairRemote, readPlatformCa } from '../../platform/remote';
import type { ChipPinSource, ChipSettings } from '../../chip/types';
import { commonArgs, openContext } from '../settings';
import { printData, repeatedFlag, UsageError } from '../output';
import { describeSkippedLines } from './sync';

/**
 * The PKCS#11 chip settings of `--chip-module`: one PIN source (a variable, a file, the reader's PIN
 * pad, or each request); `--chip-token` repeated for several cards, each with the variable or file
 * given once for all or once per token in the same order; or `--chip-all-tokens`.
 */
function chipSettings(module: string, args: Record<string, unknown>, rawArgs: string[]): ChipSettings {
  const labels = repeatedFlag(rawArgs, 'chip-token');
  const envs = repeatedFlag(rawArgs, 'chip-pin-env');
  const files = repeatedFlag(rawArgs, 'chip-pin-file');
  const pinPad = args['chip-pin-pad'] === true;
  const perRequest = args['chip-pin-per-request'] === true;
  const kinds = [envs.length > 0, files.length > 0, pinPad, perRequest].filter(Boolean).length;
  if (kinds !== 1) {
    throw new UsageError("--chip-module needs exactly one PIN source: --chip-pin-env VAR, --chip-pin-file FILE, --chip-pin-pad (the reader's PIN pad) or --chip-pin-per-request (each request brings chip_pin)");
  }
  if (args['chip-all-tokens'] === true && labels.length > 0) throw new UsageError('--chip-all-tokens takes every token: give no --chip-token with it');
  const perToken = envs.length > 1 || files.length > 1;
  if (perToken && envs.length + files.length !== labels.length) {
    throw new UsageError(`--chip-pin-env/--chip-pin-file given ${envs.length + files.length} times for ${labels.length} --chip-token: give one for all, or one per token in the same order`);
  }
  const sourceAt = (i: number): ChipPinSource => ({
    pin_env: envs[perToken ? i : 0] ?? null,
    pin_file: files[perToken ? i : 0] ?? null,
    ...(pinPad ? { pin_pad: true } : {}),
    ...(perRequest ? { pin_per_request: true } : {}),
  });
  return {
    kind: 'pkcs11',
    module,
    token_label: labels[0] ?? null,
    ...sourceAt(0),
    ...(labels.length > 1 ? { more_tokens: labels.slice(1).map((token_label, i) => ({ token_label, ...sourceAt(i + 1) })) } : {}),
    ...(args['chip-all-tokens'] === true ? { all_tokens: true } : {}),
  };
}

export const initCommand = defineCommand({
  meta: { name: 'init', description: 'Pair this machine with a platform (--embedded: the local chip and designs in the config dir)' },
  args: {
    ...commonArgs,
    embedded: { type: 'boolean', description: 'Pair with the embedded platform (tenant 0)' },
    platform: { type: 'string', description: 'Remote platform URL (with --code)' },
    code: { type: 'string', description: 'Pairing code from the platform console' },
    'callback-url': { type: 'string', description: "This service's /receive URL as the platform reaches it (without it the service polls)" },
    'platform-ca': { type: 'string', description: 'PEM file of extra CA certificates to trust for the platform (e.g. a TLS-inspecting proxy)' },
    'chip-module': { type: 'string', description: 'PKCS#11 module (.so/.dll/.dylib) of the signing chip' },
    'chip-token': { type: 'string', description: 'Token label on that module (repeatable: several cards, each its own session and PIN)' },
    'chip-all-tokens': { type: 'boolean', description: 'Every token present on the module, each with the PIN source given' },
    'chip-pin-env': { type: 'string', description: 'Name of the environment variable holding the chip PIN (once, or once per --chip-token in order)' },
    'chip-pin-file': { type: 'string', description: 'File holding the chip PIN (once, or once per --chip-token in order)' },
    'chip-pin-pad': { type: 'boolean', description: 'The reader has a PIN pad: the person types the PIN there for each login (no stored PIN)' },
    'chip-pin-per-request': { type: 'boolean', description: 'The chip keeps no PIN: each sign request brings the signatory\'s chip_pin (personal eID cards)' },
  },
  async run({ args, rawArgs }) {
    const remote = args.platform !== undefined || args.code !== undefined;
    if (remote && args.embedded) throw new UsageError('init takes either --embedded or --platform URL --code CODE, not both');
    if (!remote && !args.embedded) throw new UsageError('init needs --embedded or --platform URL --code CODE');
    if (remote && (!args.platform || !args.code)) throw new UsageError('--platform URL and --code CODE go together');
    if (!remote && (args['callback-url'] || args['platform-ca'])) throw new UsageError('--callback-url and --platform-ca go with --platform');
    const module = args['chip-module'] as string | undefined;
    const chip: ChipSettings | null = module ? chipSettings(module, args, rawArgs) : remote ? null : { kind: 'soft' };
    if (!module && ['chip-token', 'chip-all-tokens', 'chip-pin-env', 'chip-pin-file', 'chip-pin-pad', 'chip-pin-per-request'].some((f) => args[f] !== undefined && args[f] !== false)) {
      throw new UsageError('--chip-token, --chip-all-tokens, --chip-pin-env, --chip-pin-file, --chip-pin-pad and --chip-pin-per-request go with --chip-module');
    }
    const caPem = args['platform-ca'] ? readPlatformCa(String(args['platform-ca'])) : null;
    const ctx = openContext(args, rawArgs);
    // A failed init (wrong module, PIN, token, code) must leave the machine as it was: otherwise the
    // chip settings point at the bad module and the next plain `init --embedded` mints new demo
    // keys, losing the old credentials.
    const restore = snapshot(ctx);
    /** A remote pairing spends its code: once it is stored, a failure after it keeps it. */
    let keepPairing = false;
    try {
      const now = ctx.now();
      if (chip) configureEmbeddedChip({ embedded: ctx.embedded, softChipPath: ctx.paths.softChip, chip, now, port: ctx.config.port });
      const pairing = remote
        ? await pairRemote({ platformUrl: String(args.platform), code: String(args.code), callbackUrl: (args['callback-url'] as string | undefined) ?? null, caPem, net: ctx.config.net, now })
        : ({ platform: 'embedded', tenant_id: 0, paired_at: now.toISOString() } as const);
      ctx.pairing.replace({ pairing });
      keepPairing = remote;
      let cache;
      try {
        cache = await ctx.sync();
      } catch (error) {
        // The code is spent: a paired machine whose first sync failed stays paired.
        if (remote) throw new LocalsignError('upstream', `paired with ${pairing.platform === 'remote' ? pairing.platform_url : 'the platform'} (tenant ${pairing.tenant_id}), but the first sync failed: ${(error as Error).message}; run \`localsign sync\``, { type: 'platform', cause: error });
        throw error;
      }
      const out = {
        paired: true,
        platform: pairing.platform,
        tenant_id: pairing.tenant_id,
        ...(pairing.platform === 'remote' ? { platform_url: pairing.platform_url, callback_url: pairing.callback_url, mode: pairing.callback_url ? 'push' : 'poll' } : {}),
        chip: chip?.kind ?? (existsSync(ctx.paths.embedded) ? ctx.embedded.get().chip.kind : 'none'),
        credentials: cache.credentials.length,
        designs: cache.designs.length,
        config_dir: ctx.paths.home,
        // What the first sync left out, as `sync` says it (only when there is something).
        ...(cache.skipped && cache.skipped.length > 0 ? { skipped: cache.skipped } : {}),
      };
      printData(Boolean(args.json), out, () =>
        [
          pairing.platform === 'remote'
            ? `Paired with ${pairing.platform_url} (tenant ${pairing.tenant_id}, results by ${out.mode}): ${out.credentials} credential(s), ${out.designs} design(s) in ${out.config_dir}`
            : `Paired with the embedded platform (tenant 0), ${chip?.kind === 'pkcs11' ? `PKCS#11 chip ${module}` : 'software chip'}: ${out.credentials} credential(s), ${out.designs} design(s) in ${out.config_dir}`,
          ...describeSkippedLines(cache.skipped),
        ].join('\n'),
      );
    } catch (error) {
      if (!keepPairing) restore();
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
