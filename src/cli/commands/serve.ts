import { defineCommand } from 'citty';
import { startService } from '../../api/server';
import type { AppContext } from '../../context';
import { acquireInstanceLock } from '../instance-lock';
import { commonArgs, openContext } from '../settings';

export const serveArgs = {
  ...commonArgs,
  host: { type: 'string', description: 'Listen address (default 127.0.0.1, env LOCALSIGN_HOST)' },
  port: { type: 'string', description: 'Listen port (default 8300, env LOCALSIGN_PORT)' },
  'tsa-url': { type: 'string', description: 'RFC 3161 timestamp authority: PAdES signatures become B-T (env LOCALSIGN_TSA_URL)' },
  'max-body': { type: 'string', description: 'Largest request body in bytes (default 268435456, env LOCALSIGN_MAX_BODY)' },
  'request-timeout': { type: 'string', description: 'Seconds before a PENDING request ends in ERROR (default 600)' },
  'allow-host': { type: 'string', description: 'Extra Host name to serve (repeatable)' },
  'allow-origin': { type: 'string', description: 'Origin allowed to call the API (repeatable)' },
  'retention-days': { type: 'string', description: 'Days signing results are kept (default 7, env LOCALSIGN_RETENTION_DAYS)' },
  'retention-max': { type: 'string', description: 'Most signing results kept (default 10000, env LOCALSIGN_RETENTION_MAX)' },
  workers: { type: 'string', description: 'Signing worker threads (default: cores - 1, at least 2, at most 8)' },
  demo: { type: 'boolean', description: 'Pair with the embedded default if unpaired and print a fresh demo application key' },
} as const;

/** --demo: the README's first command. Embedded software chip, and a demo key printed once. */
async function prepareDemo(ctx: AppContext): Promise<void> {
  if (!ctx.currentPairing()) {
    const now = ctx.now();
    const { configureEmbeddedChip } = await import('../../platform/embedded-setup');
    configureEmbeddedChip({ embedded: ctx.embedded, softChipPath: ctx.paths.softChip, chip: { kind: 'soft' }, now });
    ctx.pairing.replace({ pairing: { platform: 'embedded', tenant_id: 0, paired_at: now.toISOString() } });
    await ctx.sync();
  }
  // The secret is only known when created: revoke the previous demo key and print a new one.
  for (const w of ctx.wrappers.list()) if (w.name === 'demo' && !w.revoked_at) ctx.wrappers.revoke(w.key, ctx.now());
  const { record, secret } = ctx.wrappers.create({ name: 'demo', credentials: null, now: ctx.now() });
  const lines = [
    'Demo application key (embedded platform, software chip, demo test CA: not trusted for real use):',
    `  export LOCALSIGN_KEY=${record.key}`,
    `  export LOCALSIGN_SECRET=${secret}`,
    ...demoCredentialExports(ctx),
    'Credentials:',
    ...ctx.cache.get().credentials.map((c) => `  ${c.credential_key}  ${c.type.padEnd(5)}  ${c.name}${c.address ? `  ${c.address}` : ''}`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/** Copy-paste lines for the README walk-through: the first PAdES and the first EVM credential. */
function demoCredentialExports(ctx: AppContext): string[] {
  const creds = ctx.cache.get().credentials;
  const pades = creds.find((c) => c.type === 'pades');
  const evm = creds.find((c) => c.type === 'evm');
  return [
    ...(pades ? [`  export LOCALSIGN_PADES_CREDENTIAL=${pades.credential_key}`] : []),
    ...(evm ? [`  export LOCALSIGN_EVM_CREDENTIAL=${evm.credential_key}`] : []),
  ];
}

const SHUTDOWN_DEADLINE_MS = 10_000;
const HTTP_GRACE_MS = 8_000;

export const serveCommand = defineCommand({
  meta: { name: 'serve', description: 'Run the HTTP service in the foreground (SIGINT/SIGTERM: drain and exit 0)' },
  args: serveArgs,
  async run({ args, rawArgs }) {
    const ctx = openContext(args, rawArgs);
    // Before anything reads or rewrites the journal: one service per config dir (instance-lock.ts).
    const lock = await acquireInstanceLock(ctx.paths.home);
    if (args.demo) await prepareDemo(ctx);
    const service = await startService(ctx);
    ctx.log.info(`localsign listening on ${service.url} (config dir ${ctx.paths.home})`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        ctx.log.info(`${signal}: finishing in-flight work`);
        // CONTRACT: SIGTERM finishes in-flight HTTP exchanges within 10 s and exits. close() gives
        // exchanges HTTP_GRACE_MS, then waits for jobs; the deadline bounds the sum. Whatever is
        // cut short is PENDING on disk (a 202 is only sent once durable) and resumes next start.
        setTimeout(resolve, SHUTDOWN_DEADLINE_MS).unref();
        void service.close(HTTP_GRACE_MS).then(resolve, resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    await lock.release();
    // The stores are closed and what did not finish in the grace stays PENDING for the next start;
    // a job still waiting on a TSA or chip that does not answer must not keep the process alive
    // past the grace (CONTRACT: SIGTERM finishes within 10 s and exits).
    process.exit(process.exitCode ?? 0);
  },
});
