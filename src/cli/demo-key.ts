import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AppContext } from '../context';
import { readFileIfExists, writeFileAtomic } from '../store/atomic-file';

/**
 * The demo application key of `serve --demo`, kept across restarts: if each start revoked the
 * previous key, the exports pasted into another terminal would get 401 and their results vanish
 * from GET /v1/results, which lists one key's requests. A wrapper secret is only known
 * when created (only its hash is in wrappers.json), so the demo key's secret is kept in
 * demo-key.json (0600, a secret file the start-up check guards like pairing.json). It is a demo:
 * `wrapper:revoke` it, and the next `serve --demo` makes a new one and says so.
 */
interface DemoKeyFile {
  key: string;
  secret: string;
}

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export function demoKeyPath(home: string): string {
  return join(home, 'demo-key.json');
}

/** The demo key: the kept one while it is active, else a new one (`replaced`: the key it replaces). */
export function ensureDemoKey(ctx: AppContext): { key: string; secret: string; created: boolean; replaced: string | null } {
  const path = demoKeyPath(ctx.paths.home);
  let kept: DemoKeyFile | null = null;
  try {
    const raw = readFileIfExists(path);
    kept = raw ? (JSON.parse(raw.toString('utf8')) as DemoKeyFile) : null;
  } catch {
    kept = null;
  }
  const record = kept ? ctx.wrappers.list().find((w) => w.key === kept!.key) : undefined;
  if (kept && record && !record.revoked_at && record.secret_sha256 === sha256Hex(kept.secret)) {
    return { key: kept.key, secret: kept.secret, created: false, replaced: null };
  }
  const { record: created, secret } = ctx.wrappers.create({ name: 'demo', credentials: null, now: ctx.now() });
  writeFileAtomic(path, JSON.stringify({ key: created.key, secret }, null, 2) + '\n');
  return { key: created.key, secret, created: true, replaced: kept?.key ?? null };
}
