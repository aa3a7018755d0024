import type { Config } from '../config/config';
import { readEnv } from '../config/env';
import { readServeFile } from './serve-file';

/**
 * Which service a command talks to: `--url`, else `--host`/`--port` (or LOCALSIGN_HOST/PORT),
 * else the service of this config dir (serve.json, whatever port it took), else the default
 * 127.0.0.1:8300. `ownDir`: whether that service is the one of this config dir, as far as the
 * CLI can know (serve.json names the same address).
 */
export interface ServiceAddress {
  base: string;
  ownDir: boolean;
  /** This config dir has a service running (at `runningAt`). */
  runningAt: string | null;
}

export function resolveServiceAddress(config: Config, args: Record<string, unknown>): ServiceAddress {
  const running = readServeFile(config.home)?.url ?? null;
  const settings = readEnv().settings;
  const explicitUrl = typeof args.url === 'string' && args.url !== '' ? args.url.replace(/\/+$/, '') : null;
  const explicit = explicitUrl !== null || Boolean(args.host || args.port || settings.host || settings.port);
  let base: string;
  if (explicitUrl) base = explicitUrl;
  else if (explicit || !running) {
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    // A service listening on every address (0.0.0.0) is asked on loopback.
    base = `http://${host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host}:${config.port}`;
  } else base = running;
  return { base, ownDir: running !== null && sameAddress(running, base), runningAt: running };
}

function sameAddress(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    const local = (h: string) => (['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]'].includes(h) ? 'loopback' : h);
    return x.port === y.port && local(x.hostname) === local(y.hostname);
  } catch {
    return false;
  }
}
