import { defineCommand } from 'citty';
import { describeListenError } from '../../service/listen-error';
import { refuseUnsafeListen } from '../../service/listen-policy';
import type { AppContext } from '../../context';
import { escapeControls } from '../../log/escape';
import { ensureDemoKey } from '../demo-key';
import { acquireInstanceLock } from '../instance-lock';
import { removeServeFile, writeServeFile } from '../serve-file';
import { shellExportLines } from '../shell-exports';
import { commonArgs, openContext } from '../settings';

/** No --json: serve prints log lines, not data (an unknown flag is a usage error, args-check.ts). */
export const serveArgs = {
  home: commonArgs.home,
  host: { type: 'string', description: 'Listen address (default 127.0.0.1, env LOCALSIGN_HOST)' },
  port: { type: 'string', description: 'Listen port (default 8300, env LOCALSIGN_PORT)' },
  'tsa-url': { type: 'string', description: 'RFC 3161 timestamp authority: PAdES signatures become B-T (env LOCALSIGN_TSA_URL)' },
  'pades-level': { type: 'string', description: 'PAdES level of requests that ask for none: B-B, B-T, B-LT or B-LTA (default B-T with --tsa-url, else B-B; env LOCALSIGN_PADES_LEVEL)' },
  trust: { type: 'string', description: 'PEM file of trust anchors for POST /v1/pades/verify (env LOCALSIGN_TRUST)' },
  'receive-listen': { type: 'string', description: 'HOST:PORT of a second listener serving only POST /receive, for platform pushes (env LOCALSIGN_RECEIVE_LISTEN)' },
  'max-body': { type: 'string', description: 'Largest request body in bytes (default 268435456, env LOCALSIGN_MAX_BODY)' },
  'max-body-memory': { type: 'string', description: 'Request bodies held in memory at once, in bytes, 503 beyond (default 536870912, env LOCALSIGN_MAX_BODY_MEMORY)' },
  'disk-quota': { type: 'string', description: "MiB one application may fill with its results and its last 24 hours of audit records, 429 beyond (default 2048, 0 none; env LOCALSIGN_DISK_QUOTA)" },
  'max-connections': { type: 'string', description: 'Connections held at once; beyond, the longest-idle one is closed (default 512, env LOCALSIGN_MAX_CONNECTIONS)' },
  'request-timeout': { type: 'string', description: 'Seconds before a PENDING request ends in ERROR (default 600)' },
  'allow-host': { type: 'string', description: 'Extra Host name to serve (repeatable)' },
  'allow-origin': { type: 'string', description: 'Origin allowed to call the API (repeatable)' },
  'retention-days': { type: 'string', description: 'Days signing results are kept (default 7, env LOCALSIGN_RETENTION_DAYS)' },
  'retention-max': { type: 'string', description: 'Most signing results kept (default 10000, env LOCALSIGN_RETENTION_MAX)' },
  workers: { type: 'string', description: 'Signing worker threads (default: cores - 1, at least 2, at most 8)' },
  'document-time-limit': { type: 'string', description: 'Seconds one step on one PDF may take in a PDF worker, 422 beyond (default 8, env LOCALSIGN_DOCUMENT_TIME_LIMIT)' },
  'document-memory-limit': { type: 'string', description: 'Heap of each PDF worker process in MiB, 422 beyond (default 384, env LOCALSIGN_DOCUMENT_MEMORY_LIMIT)' },
  'allow-remote': { type: 'boolean', description: 'Allow --host beyond loopback (prints a warning; remote callers must use an --allow-host name; env LOCALSIGN_ALLOW_REMOTE=1)' },
  'rate-limit': { type: 'string', description: 'Requests per second per application key, 429 beyond (default 0: off, env LOCALSIGN_RATE_LIMIT)' },
  'rate-burst': { type: 'string', description: 'Requests an application key may make at once (default 2 s of --rate-limit, env LOCALSIGN_RATE_BURST)' },
  'header-timeout': { type: 'string', description: 'Seconds for a request\'s headers to arrive, 408 beyond (default 10, env LOCALSIGN_HEADER_TIMEOUT)' },
  'body-timeout': { type: 'string', description: 'Seconds a request body may pause, 408 beyond (default 30, env LOCALSIGN_BODY_TIMEOUT)' },
  demo: { type: 'boolean', description: 'Pair with the embedded default if unpaired and print the demo application key (kept across restarts) with copy-paste exports' },
} as const;

/**
 * --demo: the README's first command. Pairs with the embedded platform (software chip) when
 * unpaired, and prints the demo key with copy-paste exports in the machine's shell, BASE included
 * (so the walk-through works on any port). Runs once the port is bound: a busy port fails before
 * anything is created.
 */
async function prepareDemo(ctx: AppContext, url: string): Promise<void> {
  if (!ctx.currentPairing()) {
    const now = ctx.now();
    const { configureEmbeddedChip } = await import('../../platform/embedded-setup');
    configureEmbeddedChip({ embedded: ctx.embedded, softChipPath: ctx.paths.softChip, chip: { kind: 'soft' }, now, port: ctx.config.port });
    ctx.pairing.replace({ pairing: { platform: 'embedded', tenant_id: 0, paired_at: now.toISOString() } });
    await ctx.sync();
  }
  const demo = ensureDemoKey(ctx);
  const lines = [
    demo.created
      ? `Demo application key (new${demo.replaced ? `: ${demo.replaced} was revoked, so earlier exports no longer work` : ''}; embedded platform, software chip, demo test CA: not trusted for real use):`
      : 'Demo application key (the same as at the last start; embedded platform, software chip, demo test CA: not trusted for real use):',
    ...shellExportLines([['BASE', url], ['LOCALSIGN_KEY', demo.key], ['LOCALSIGN_SECRET', demo.secret], ...demoCredentialExports(ctx)]),
    'Credentials:',
    // Names from the catalogue escaped like the logs, as `localsign credentials` shows them.
    ...ctx.cache.get().credentials.map((c) => escapeControls(`  ${c.credential_key}  ${c.type.padEnd(5)}  ${c.name}${c.address ? `  ${c.address}` : ''}`)),
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (demo.replaced) ctx.log.warn(`the demo key changed: ${demo.replaced} was revoked; use the new exports above`);
}

/**
 * Variables for the README walk-through: the first credential of each type the kinds sign with
 * (LOCALSIGN_PADES_CREDENTIAL, LOCALSIGN_EVM_CREDENTIAL).
 */
function demoCredentialExports(ctx: AppContext): [string, string][] {
  const creds = ctx.cache.get().credentials;
  return [...ctx.kinds.credentialTypes().keys()].flatMap((type) => {
    const first = creds.find((c) => c.type === type);
    return first ? [[`LOCALSIGN_${type.toUpperCase()}_CREDENTIAL`, first.credential_key] as [string, string]] : [];
  });
}

/**
 * Unpaired and not --demo: every signing request would get 409, which a silent start would hide.
 * Said before the "listening on" line, with the ways to pair; the service still starts (pairing while it runs
 * is picked up: `init` in another terminal).
 */
function unpairedNotice(ctx: AppContext): void {
  if (ctx.currentPairing()) return;
  const home = ctx.paths.home;
  ctx.log.warn(
    `this config dir (${home}) is not paired: signing requests get 409 until it is. Pair it with \`localsign init --embedded\` (the local chip), \`localsign init --platform URL --code CODE\` or \`localsign enrol --file FILE\`, or start with \`localsign serve --demo\``,
  );
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
    ctx.trustAnchors(); // an unreadable --trust file stops the start, not the first verification
    refuseUnsafeListen(ctx.config);
    // The PDF worker and the signing thread start now, and warm up while this process loads the
    // HTTP layer (hono, its Node adapter, and Node's fetch classes that adapter extends: about
    // 40 ms of a start, measured on a 2-core machine), so that the first signature at once after
    // start waits that much less for them. Every other command never loads that layer.
    ctx.prewarm();
    const { startService } = await import('../../service/server');
    // Listen first: a busy port fails before any demo key is created, in one line naming
    // the port and the option to change it.
    const service = await startService(ctx).catch((error: unknown) => {
      throw describeListenError(error, ctx.config);
    });
    if (args.demo) await prepareDemo(ctx, service.url);
    // After the checks that refuse a start (one line each), before the "listening on" line.
    else unpairedNotice(ctx);
    // Where this dir's service listens, for `status` and the commands that call it (service-file.ts).
    writeServeFile(ctx.paths.home, { pid: process.pid, url: service.url, started_at: ctx.now().toISOString() });
    ctx.log.info(`localsign listening on ${service.url} (config dir ${ctx.paths.home})`);
    if (service.receiveUrl) ctx.log.info(`platform pushes received on ${service.receiveUrl} (that listener serves nothing else)`);
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
    removeServeFile(ctx.paths.home, process.pid);
    await lock.release();
    // The stores are closed and what did not finish in the grace stays PENDING for the next start;
    // a job still waiting on a TSA or chip that does not answer must not keep the process alive
    // past the grace (CONTRACT: SIGTERM finishes within 10 s and exits).
    process.exit(process.exitCode ?? 0);
  },
});
