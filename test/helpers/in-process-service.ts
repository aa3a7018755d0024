/**
 * The service of a config dir run in this process (AppContext and startService from source),
 * listening on a free loopback port as `serve` does. Signing and PDF work run inline, in this
 * process. For:
 * - a test that registers a kind or an engine of its own beside the built-in ones (context.ts
 *   `kinds`, `engines`): a spawned bundle has no way to load a test's code;
 * - a test of what the HTTP API answers that needs no process of its own (no crash, no signal, no
 *   PDF worker process, no start-up figure): it runs here in a fraction of a spawn's time, and
 *   reads the source, not a build. The tests that need a process spawn the release bundle
 *   (service-process.ts).
 */
import { buildConfig } from '../../src/config/config';
import { readEnv, type RawSettings } from '../../src/config/env';
import { AppContext, type ContextOptions } from '../../src/context';
import { startService } from '../../src/service/server';

/** What a test of the HTTP API reads of a running service, in this process: startServiceProcess's shape without the child. */
export interface InProcessService {
  url: string;
  port: number;
  ctx: AppContext;
  /** Everything the service logged so far (its console lines). */
  output(): string;
  /** Finishes in-flight exchanges and closes the stores, as SIGTERM does `serve`. */
  stop(): Promise<void>;
}

/**
 * The service of `home` (paired beforehand, by the CLI as a user would), with `settings` as serve's
 * flags give them, and the test's own kinds or engines beside the built-in ones: the catalogue is
 * synced first then, so their credentials are read by this service, not by the CLI that paired it.
 */
export async function startServiceInProcess(o: { home: string; settings?: RawSettings } & Pick<ContextOptions, 'kinds' | 'engines'>): Promise<InProcessService> {
  const config = buildConfig(readEnv({}), { ...o.settings, home: o.home }, { port: 0, workers: 0 });
  let printed = '';
  const stderr = { write: (chunk: string | Uint8Array) => ((printed += chunk.toString()), true) } as unknown as NodeJS.WritableStream;
  const ctx = new AppContext(config, { config, withRequests: true, stderr, kinds: o.kinds, engines: o.engines });
  if (o.kinds || o.engines) await ctx.sync();
  const service = await startService(ctx);
  return { url: service.url, port: service.port, ctx, output: () => printed, stop: () => service.close(1000) };
}
