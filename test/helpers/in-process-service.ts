/**
 * The service of a config dir run in this process (AppContext and startService from source), for
 * a test that registers a kind or an engine of its own beside the built-in ones (context.ts
 * `kinds`, `engines`): a spawned bundle has no way to load a test's code. Signing threads and PDF
 * work run inline. The catalogue is synced first, so a credential of the test's own kind or
 * engine is read by this service, not by the CLI that paired it.
 */
import { buildConfig } from '../../src/config/config';
import { readEnv } from '../../src/config/env';
import { AppContext, type ContextOptions } from '../../src/context';
import { startService, type RunningService } from '../../src/service/server';

export async function startInProcessService(home: string, registered: Pick<ContextOptions, 'kinds' | 'engines'>): Promise<{ ctx: AppContext; service: RunningService }> {
  const config = buildConfig(readEnv({}), {}, { home, port: 0, workers: 0 });
  const ctx = new AppContext(config, { config, withRequests: true, stderr: { write: () => true } as unknown as NodeJS.WritableStream, ...registered });
  await ctx.sync();
  return { ctx, service: await startService(ctx) };
}
