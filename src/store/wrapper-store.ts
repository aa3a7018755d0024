import { createHash, timingSafeEqual } from 'node:crypto';
import { newWrapperKey, newWrapperSecret } from '../config/ids';
import { LocalsignError } from '../domain/errors';
import type { WrapperRecord } from './catalog-types';
import { JsonCollection } from './json-collection';

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
/** Compared against when the key is unknown, so both failures cost the same (CONTRACT: same 401). */
const DUMMY = sha256Hex('localsign-no-such-wrapper');

export class WrapperStore {
  private readonly file: JsonCollection<{ wrappers: WrapperRecord[] }>;

  constructor(path: string, lockPath: string) {
    this.file = new JsonCollection<{ wrappers: WrapperRecord[] }>(path, lockPath, () => ({ wrappers: [] }));
  }

  create(options: { name: string; credentials: string[] | null; now: Date }): { record: WrapperRecord; secret: string } {
    const secret = newWrapperSecret();
    const record: WrapperRecord = {
      key: newWrapperKey(),
      name: options.name,
      secret_sha256: sha256Hex(secret),
      credentials: options.credentials && options.credentials.length > 0 ? options.credentials : null,
      created_at: options.now.toISOString(),
      revoked_at: null,
    };
    this.file.update((d) => d.wrappers.push(record));
    return { record, secret };
  }

  list(): WrapperRecord[] {
    return this.file.get().wrappers;
  }

  revoke(key: string, now: Date): WrapperRecord {
    return this.file.update((d) => {
      const w = d.wrappers.find((x) => x.key === key);
      if (!w) throw new LocalsignError('not_found', `no wrapper key ${key.slice(0, 40)}`);
      if (!w.revoked_at) w.revoked_at = now.toISOString();
      return w;
    });
  }

  /** The active wrapper for this key and secret, or null; constant-time on the secret. */
  authenticate(key: string, secret: string): WrapperRecord | null {
    const found = this.file.get().wrappers.find((w) => w.key === key);
    const expected = Buffer.from(found ? found.secret_sha256 : DUMMY, 'hex');
    const given = Buffer.from(sha256Hex(secret), 'hex');
    const same = timingSafeEqual(expected, given);
    return found && same && !found.revoked_at ? found : null;
  }
}
