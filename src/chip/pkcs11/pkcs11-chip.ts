/**
 * The PKCS#11 signing chip: one logged-in session on the token with the configured label, every
 * call queued on it, and a transparent reconnect when the device closes the session or the
 * token is pulled and plugged back.
 */
import { ChipError } from '../../errors/errors';
import type { Chip, ChipKey, ChipKeyAlgorithm } from '../types';
import { CKM_ECDSA, CKM_RSA_PKCS } from './constants';
import { sha256DigestInfo } from '../../der/keys';
import { readKeyInventory } from './key-inventory';
import { acquirePkcs11Module, type Pkcs11Module } from './module-registry';
import { isPinRejection } from '../pin-rejection';
import { isSessionLost } from './return-codes';
import { SerialQueue } from './serial-queue';
import { TokenNotPresentError } from './token-discovery';
import { TokenSession } from './token-session';

export interface Pkcs11ChipOptions {
  /** Path of the vendor's PKCS#11 shared library (.so, .dylib, .dll). */
  modulePath: string;
  /** CK_TOKEN_INFO.label of the token; optional when exactly one token is present. */
  tokenLabel?: string;
  /**
   * Returns the user PIN when a login is needed (at start and after each reconnect), so the
   * caller decides where it lives (env var, file) and it is never stored here.
   */
  pin: () => string;
}

interface KeyRef {
  handle: bigint;
  algorithm: ChipKeyAlgorithm;
}

class Pkcs11Chip implements Chip {
  readonly kind = 'pkcs11' as const;
  readonly #module: Pkcs11Module;
  readonly #options: Pkcs11ChipOptions;
  readonly #queue = new SerialQueue();
  #session: TokenSession | null = null;
  /** Key handles by CKA_ID hex, for the current session only (handles die with it). */
  #keys: Map<string, KeyRef> | null = null;
  /** Set once a session existed: only then is a missing token worth a module rescan. */
  #wasConnected = false;
  #closed = false;
  /**
   * The token refused the PIN at a (re)login: every later call fails with this at once, without
   * C_Login, so calls queued behind it do not each spend one of the token's few wrong tries. Only
   * a new chip logs in again (signing/chip-provider.ts opens one when the operator acts).
   */
  #pinRejected: Error | null = null;

  constructor(module: Pkcs11Module, options: Pkcs11ChipOptions) {
    this.#module = module;
    this.#options = options;
  }

  /** Opens the first session so a wrong PIN or missing token fails at start, not at first use. */
  connect(): Promise<void> {
    return this.#queue.run(async () => {
      await this.#ensureSession();
    });
  }

  listKeys(): Promise<ChipKey[]> {
    return this.#run(async (session) => {
      const entries = await readKeyInventory(session);
      this.#keys = new Map(entries.map((e) => [e.key.id, { handle: e.handle, algorithm: e.key.algorithm }]));
      return entries.map((e) => e.key);
    });
  }

  signDigest(keyId: string, digest: Uint8Array): Promise<Uint8Array> {
    if (digest.length !== 32) {
      return Promise.reject(new ChipError(`digest must be 32 bytes (SHA-256 or keccak256), got ${digest.length}`));
    }
    const id = keyId.toLowerCase();
    return this.#run(async (session) => {
      const key = await this.#findKey(session, id);
      if (key.algorithm === 'rsa') {
        // RSASSA-PKCS1-v1_5 (RFC 8017 §8.2): CKM_RSA_PKCS pads and signs the DigestInfo we give it.
        return session.sign(key.handle, CKM_RSA_PKCS, sha256DigestInfo(digest));
      }
      // CKM_ECDSA signs the digest as given and returns r‖s, each the size of the order (pkcs11-curr §2.3.1).
      const signature = await session.sign(key.handle, CKM_ECDSA, digest);
      if (signature.length !== 64) {
        throw new ChipError(`token '${session.label}' returned a ${signature.length}-byte ECDSA signature; expected r‖s of 64 bytes`);
      }
      return signature;
    });
  }

  close(): Promise<void> {
    return this.#queue.run(async () => {
      if (this.#closed) return;
      this.#closed = true;
      await this.#dropSession();
      await this.#module.release();
    });
  }

  async #findKey(session: TokenSession, id: string): Promise<KeyRef> {
    if (!this.#keys) {
      const entries = await readKeyInventory(session);
      this.#keys = new Map(entries.map((e) => [e.key.id, { handle: e.handle, algorithm: e.key.algorithm }]));
    }
    const key = this.#keys.get(id);
    if (!key) throw new ChipError(`no signing key with id ${id} on token '${session.label}'`);
    return key;
  }

  /** Runs `op` on the session in the queue; on a lost session, reconnects once and retries. */
  #run<T>(op: (session: TokenSession) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      if (this.#closed) throw new ChipError('the PKCS#11 chip is closed');
      const session = await this.#ensureSession();
      try {
        return await op(session);
      } catch (error) {
        if (!isSessionLost(error)) throw error;
        await this.#dropSession();
        return op(await this.#ensureSession());
      }
    });
  }

  async #ensureSession(): Promise<TokenSession> {
    if (this.#session) return this.#session;
    if (this.#pinRejected) throw this.#pinRejected;
    try {
      const session = await this.#openSession();
      this.#session = session;
      this.#wasConnected = true;
      return session;
    } catch (error) {
      if (isPinRejection(error)) this.#pinRejected = error;
      throw error;
    }
  }

  async #openSession(): Promise<TokenSession> {
    const { tokenLabel, pin } = this.#options;
    try {
      return await TokenSession.open(this.#module, tokenLabel, pin);
    } catch (error) {
      // A token that was removed and came back may be invisible until the module rescans its
      // slots at C_Initialize (SoftHSM2 does this; so do some smart-card middlewares).
      const gone = error instanceof TokenNotPresentError || isSessionLost(error);
      if (!this.#wasConnected || !gone) throw error;
      // A failed rescan (SoftHSM2 refuses C_Initialize while its token directory is missing)
      // says less than the first error; the next call tries again.
      await this.#module.reinitialize().catch(() => {
        throw error;
      });
      return TokenSession.open(this.#module, tokenLabel, pin);
    }
  }

  async #dropSession(): Promise<void> {
    const session = this.#session;
    this.#session = null;
    this.#keys = null;
    if (session) await session.close();
  }
}

/**
 * Loads the module (once per process), finds the token by label, opens a session and logs in.
 * Every failure is a ChipError naming the problem (module missing, token not present, PIN
 * incorrect or locked), never the PIN.
 */
export async function createPkcs11Chip(options: Pkcs11ChipOptions): Promise<Chip> {
  const module = await acquirePkcs11Module(options.modulePath);
  const chip = new Pkcs11Chip(module, options);
  try {
    await chip.connect();
  } catch (error) {
    await module.release();
    throw error;
  }
  return chip;
}
