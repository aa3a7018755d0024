import { timingSafeEqual } from 'node:crypto';
import { newWrapperKey, newWrapperSecret } from '../config/ids';
import { LocalsignError } from '../domain/errors';
import type { WrapperRecord } from './catalog-types';
import { JsonCollection } from './json-collection';
import {
  NonceCache,
  parseSignatureHeader,
  requestMessage,
  requestSignature,
  sameHex,
  secretSha256,
  serviceProof,
  SIGNATURE_WINDOW_SECONDS,
  UNKNOWN_KEY_HASH,
} from './wrapper-signatures';

const sha256Hex = (s: string) => secretSha256(s).toString('hex');
/** Compared against when the key is unknown, so both failures cost the same (CONTRACT: same 401). */
const DUMMY = sha256Hex('localsign-no-such-wrapper');

export class WrapperStore {
  private readonly file: JsonCollection<{ wrappers: WrapperRecord[] }>;

  private readonly nonces = new NonceCache();

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

  /**
   * The active wrapper whose request signature (`X-Wrapper-Signature`, wrapper-signatures.ts)
   * covers this method and target within the time window, with a nonce not seen before; or null.
   * Every failure costs one HMAC, whatever failed.
   */
  authenticateSigned(key: string, header: string, request: { method: string; target: string }, now: number): WrapperRecord | null {
    const found = this.file.get().wrappers.find((w) => w.key === key);
    const parsed = parseSignatureHeader(header);
    const expected = requestSignature(found ? found.secret_sha256 : DUMMY, requestMessage({ ...request, time: parsed?.time ?? 0, nonce: parsed?.nonce ?? '', key }));
    const same = parsed !== null && sameHex(expected, parsed.signature);
    if (!found || !same || found.revoked_at) return null;
    if (Math.abs(now / 1000 - parsed.time) > SIGNATURE_WINDOW_SECONDS) return null;
    return this.nonces.admit(parsed.nonce, now) ? found : null;
  }

  /**
   * The service's answer to `challenge` for `key`: from the key's secret hash when the key is
   * active, else from a hash no secret has, so an unknown or revoked key gets an answer of the same
   * shape and cost that proves nothing (a caller learns nothing about which keys exist).
   */
  proof(key: string, challenge: string): string {
    const found = this.file.get().wrappers.find((w) => w.key === key && !w.revoked_at);
    return serviceProof(found ? found.secret_sha256 : UNKNOWN_KEY_HASH, key, challenge);
  }
}
