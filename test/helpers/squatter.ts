/**
 * A squatter on the service's address as its own process (program: `squatter/main.ts`): another
 * user's program that answers in the service's place, recording everything it receives; or, with
 * `relay`, one that passes the real service's answers through with their proof but replaces the
 * signing results (`forge`). Issue 31.
 */
import { fileURLToPath } from 'node:url';
import { startChildProgram } from './child-program';
import type { SquatterLogEntry } from './squatter/main';

export type { SquatterLogEntry } from './squatter/main';

const PROGRAM = fileURLToPath(new URL('./squatter/main.ts', import.meta.url));

export interface Squatter {
  url: string;
  /** Every request it received (its control requests aside), oldest first. */
  received(): Promise<SquatterLogEntry[]>;
  /** Relay only: what replaces a DONE result's JSON fields, and the bytes of the /pdf route. */
  forge(f: { json?: Record<string, unknown>; pdf_base64?: string }): Promise<void>;
  stop(): Promise<void>;
}

export async function startSquatter(o: { host: string; port: number; relay?: string }): Promise<Squatter> {
  const program = await startChildProgram(PROGRAM, ['--host', o.host, '--port', String(o.port), ...(o.relay ? ['--relay', o.relay] : [])]);
  // fetch, not http-json.ts: it takes an [::1] URL as it is.
  const ctl = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${program.url}/__control/${path}`, { method, headers: { connection: 'close' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (res.status !== 200) throw new Error(`squatter control ${method} ${path} -> ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    url: program.url,
    received: async () => (await ctl<{ log: SquatterLogEntry[] }>('GET', 'log')).log,
    forge: async (f) => void (await ctl('PUT', 'forge', f)),
    stop: program.stop,
  };
}
