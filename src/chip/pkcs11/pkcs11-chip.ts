/**
 * The PKCS#11 signing chip: one session on the token with the configured label, every call queued
 * on it, and a transparent reconnect when the device closes the session or the token is pulled
 * and plugged back (one reopen per call, never a loop).
 *
 * How the user is proven to the token:
 * - a stored PIN (variable or file): the session logs in when it opens;
 * - the reader's PIN pad: C_Login with a NULL PIN when a signature first needs it, the person
 *   typing on the reader meanwhile (the request stays PENDING; its timeout cancels the wait);
 * - a PIN per request (`chip_pin`): the session logs in for one signature and out after it.
 * Before a login for one signature the token's flags are read: no PIN goes to a locked card, nor a
 * `chip_pin` to one whose next wrong PIN locks it (pin-flags.ts); wrong `chip_pin` values are
 * counted and slowed per application and per token (../pin-tries.ts).
 * A key marked CKA_ALWAYS_AUTHENTICATE gets C_Login(CKU_CONTEXT_SPECIFIC) after every C_SignInit,
 * with the same PIN (or the pad again).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { ChipError } from '../../domain/errors';
import type { Chip, ChipKey, ChipKeyAlgorithm, SignOptions } from '../types';
import { CKM_ECDSA, CKM_RSA_PKCS } from './constants';
import { sha256DigestInfo } from '../../der/keys';
import { bytesEqual } from '../../der/der';
import { readKeyInventory } from './key-inventory';
import { acquirePkcs11Module, type Pkcs11Module } from './module-registry';
import { isPinRejection } from '../pin-rejection';
import type { TokenPinTries } from '../pin-tries';
import { afterRefusalNote, loginRefusal, type PinState } from './pin-flags';
import { isSessionLost, Pkcs11CallError } from './return-codes';
import { SerialQueue } from './serial-queue';
import { TokenNotPresentError } from './token-discovery';
import { TokenSession, type LoginSecret } from './token-session';

/**
 * Where the user PIN comes from: a reader of the operator's stored PIN (called at each login, so
 * it is never kept), the reader's PIN pad, or each sign request.
 */
export type Pkcs11PinSource = (() => string) | 'pad' | 'per-request';

export interface Pkcs11ChipOptions {
  /** Path of the vendor's PKCS#11 shared library (.so, .dylib, .dll). */
  modulePath: string;
  /** CK_TOKEN_INFO.label of the token; optional when exactly one token is present. */
  tokenLabel?: string;
  pin: Pkcs11PinSource;
  /** With a PIN per request: this token's count of wrong `chip_pin` values (kept by the provider across reopens). */
  tries?: TokenPinTries;
}

interface KeyRef {
  handle: bigint | null;
  algorithm: ChipKeyAlgorithm;
  publicKey: Uint8Array;
  pinPerSignature: boolean;
}

/** CKR_PIN_LOCKED: the card takes no PIN at all any more, whoever types it. */
const CKR_PIN_LOCKED = 0xa4;

class Pkcs11Chip implements Chip {
  readonly kind = 'pkcs11' as const;
  readonly #module: Pkcs11Module;
  readonly #options: Pkcs11ChipOptions;
  readonly #queue = new SerialQueue();
  #session: TokenSession | null = null;
  /** The session is logged in as the user (a stored PIN at open, or the pad once typed). */
  #loggedIn = false;
  /** Key handles by id, for the current session and login only (handles die with it). */
  #keys: Map<string, KeyRef> | null = null;
  /** Public keys of the last listing by id: a key listed before a login is found again by its key. */
  #listed = new Map<string, Uint8Array>();
  /** Set once a session existed: only then is a missing token worth a module rescan. */
  #wasConnected = false;
  #closed = false;
  /** Whether the token answered the last time it was asked (for /health). */
  #present = true;
  /**
   * The token refused the stored PIN: every later call fails with this at once, without
   * C_Login, so calls queued behind it do not each spend one of the token's few wrong tries. Only
   * a new chip logs in again (chip/provider.ts opens one when the operator acts).
   */
  #pinRejected: Error | null = null;
  /**
   * Per-request PINs the card refused, as HMACs under a key of this process: the same PIN is
   * never presented again (a card counts wrong tries and locks), and the PIN itself is not kept.
   */
  readonly #refusedPins = new Set<string>();
  readonly #pinKey = randomBytes(32);
  /** The token's PIN state right after it refused a `chip_pin`, for that refusal's message. */
  #stateAfterRefusal: PinState | null = null;

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

  /** The token answered the last call made to it (false while it is pulled out). */
  get present(): boolean {
    return this.#present;
  }

  listKeys(): Promise<ChipKey[]> {
    return this.#run(async (session) => {
      const entries = await readKeyInventory(session);
      this.#remember(entries);
      this.#listed = new Map(entries.map((e) => [e.key.id, e.key.publicKey]));
      return entries.map((e) => e.key);
    });
  }

  signDigest(keyId: string, digest: Uint8Array, options: SignOptions = {}): Promise<Uint8Array> {
    const { signal, pin, onSigning, caller } = options;
    if (digest.length !== 32) {
      return Promise.reject(new ChipError(`digest must be 32 bytes (SHA-256 or keccak256), got ${digest.length}`));
    }
    const perRequest = this.#options.pin === 'per-request';
    if (perRequest && !pin) return Promise.reject(new ChipError('this chip takes its PIN with each request: send chip_pin'));
    if (!perRequest && pin) return Promise.reject(new ChipError('this chip has its PIN configured (or a PIN pad): chip_pin is not taken'));
    if (pin && this.#refusedPins.has(this.#pinMark(pin))) {
      return Promise.reject(new ChipError('the card refused this chip_pin before; it is not presented again, so that wrong tries do not lock the card'));
    }
    const id = keyId.toLowerCase();
    const run = this.#run(async (session) => {
      // The request ended while it waited for the token: nothing reaches the token for it.
      signal?.throwIfAborted();
      // A C_Login waiting on a PIN pad for a request that has ended is cut short by closing the
      // session from outside the queue; the next call opens a new one. Other calls take
      // milliseconds and are left to finish (their result is dropped).
      const abort = () => {
        if (this.#options.pin === 'pad') void session.abort();
      };
      signal?.addEventListener('abort', abort, { once: true });
      try {
        const user = this.#userSecret(pin);
        if (user && !this.#loggedIn) {
          await this.#logInForSignature(session, user, caller ?? '');
          this.#loggedIn = this.#options.pin === 'pad';
          this.#keys = null; // private keys become visible with the login
        }
        const key = await this.#findKey(session, id);
        if (key.handle === null) throw new ChipError(`the private key of ${id} on token '${session.label}' is not visible after the login`);
        const context = key.pinPerSignature ? this.#userSecret(pin) ?? undefined : undefined;
        // A login that returned after the request ended (a reader that does not cancel its PIN
        // pad) must not lead to a C_SignInit for it either.
        signal?.throwIfAborted();
        // The last look before C_Sign, and the caller's hook, run in one turn of the event loop:
        // a timeout either comes before (no signature) or finds the signature under way.
        const beforeSign = () => {
          signal?.throwIfAborted();
          onSigning?.();
        };
        if (key.algorithm === 'rsa') {
          // RSASSA-PKCS1-v1_5 (RFC 8017 §8.2): CKM_RSA_PKCS pads and signs the DigestInfo we give it.
          return await session.sign(key.handle, CKM_RSA_PKCS, sha256DigestInfo(digest), context, beforeSign);
        }
        // CKM_ECDSA signs the digest as given and returns r‖s, each the size of the order (pkcs11-curr §2.3.1).
        const signature = await session.sign(key.handle, CKM_ECDSA, digest, context, beforeSign);
        if (signature.length !== 64) {
          throw new ChipError(`token '${session.label}' returned a ${signature.length}-byte ECDSA signature; expected r‖s of 64 bytes`);
        }
        return signature;
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw this.#judgePin(error, pin);
      } finally {
        signal?.removeEventListener('abort', abort);
        // A PIN given per request does not stay logged in for the next caller.
        if (perRequest && !session.closed) {
          await session.logout();
          this.#keys = null;
        }
      }
    }, signal);
    // The request's PIN is zeroed once this signature is over, whatever the outcome.
    return pin ? run.finally(() => pin.fill(0)) : run;
  }

  close(): Promise<void> {
    return this.#queue.run(async () => {
      if (this.#closed) return;
      this.#closed = true;
      await this.#dropSession();
      await this.#module.release();
    });
  }

  /** What a login presents now: the stored PIN read afresh, the pad, a copy of the request's PIN, or nothing. */
  #userSecret(pin: Uint8Array | undefined): LoginSecret | null {
    const source = this.#options.pin;
    if (source === 'pad') return 'pad';
    if (source === 'per-request') return pin ? () => Uint8Array.from(pin) : null;
    return () => Buffer.from(source(), 'utf8');
  }

  /**
   * The login of a PIN pad or a request's `chip_pin` (a stored PIN logs in when the session
   * opens). A `chip_pin` waits its turn after wrong ones (pin-tries.ts), and neither is presented
   * when the token's flags say it is locked or, for a `chip_pin`, that one more wrong PIN locks it.
   */
  async #logInForSignature(session: TokenSession, user: LoginSecret, caller: string): Promise<void> {
    const who = this.#options.pin === 'pad' ? 'pad' : 'chip_pin';
    const tries = who === 'chip_pin' ? this.#options.tries : undefined;
    tries?.check(caller);
    const state = await session.pinState();
    const refusal = state && loginRefusal(state, who, session.label);
    if (refusal) throw refusal;
    try {
      await session.login(user);
    } catch (error) {
      if (who === 'chip_pin' && isPinRejection(error)) {
        tries?.failed(caller);
        this.#stateAfterRefusal = await session.pinState().catch(() => null);
      }
      throw error;
    }
    tries?.succeeded(caller);
  }

  #pinMark(pin: Uint8Array): string {
    return createHmac('sha256', this.#pinKey).update(pin).digest('hex');
  }

  /**
   * A refusal of the stored PIN latches (the operator fixes it). A PIN the person gave (per
   * request, or on the pad) is theirs to retype: it does not block the others, but a per-request
   * one is never presented again; a locked card latches whoever typed.
   */
  #judgePin(error: unknown, pin: Uint8Array | undefined): unknown {
    if (!isPinRejection(error)) return error;
    if (this.#options.pin !== 'pad' && this.#options.pin !== 'per-request') {
      this.#pinRejected = error;
      return error;
    }
    if (pin) this.#refusedPins.add(this.#pinMark(pin));
    if (error instanceof Pkcs11CallError && error.rv === CKR_PIN_LOCKED) {
      this.#pinRejected = error;
      return error;
    }
    const who = pin ? 'chip_pin' : 'the PIN typed on the reader';
    const note = pin ? afterRefusalNote(this.#stateAfterRefusal) : '';
    this.#stateAfterRefusal = null;
    return new ChipError(`the card refused ${who} (${error.code}); ${pin ? 'send the right one' : 'type it again'} with the next request${note}`, { cause: error });
  }

  #remember(entries: Awaited<ReturnType<typeof readKeyInventory>>): void {
    this.#keys = new Map(entries.map((e) => [e.key.id, { handle: e.handle, algorithm: e.key.algorithm, publicKey: e.key.publicKey, pinPerSignature: e.key.pinPerSignature ?? false }]));
  }

  async #findKey(session: TokenSession, id: string): Promise<KeyRef> {
    if (!this.#keys) this.#remember(await readKeyInventory(session));
    const keys = this.#keys!;
    const byId = keys.get(id);
    if (byId?.handle != null) return byId;
    // Listed before a login from the certificate (whose CKA_ID may differ from the key's): the
    // private key is the one with the same public key.
    const publicKey = this.#listed.get(id) ?? byId?.publicKey;
    const byKey = publicKey && [...keys.values()].find((k) => k.handle !== null && bytesEqual(k.publicKey, publicKey));
    if (byKey) return byKey;
    if (byId) return byId;
    throw new ChipError(`no signing key with id ${id} on token '${session.label}'`);
  }

  /**
   * Runs `op` on the session in the queue; on a lost session, reconnects once and retries. An
   * aborted `signal` takes a call still waiting out of the queue at once (serial-queue.ts).
   */
  #run<T>(op: (session: TokenSession) => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.#queue.run(async () => {
      if (this.#closed) throw new ChipError('the PKCS#11 chip is closed');
      // Calls queued behind one the token refused the stored PIN for: none reaches the token.
      if (this.#pinRejected) throw this.#pinRejected;
      try {
        const session = await this.#ensureSession();
        try {
          const result = await op(session);
          this.#present = true;
          return result;
        } catch (error) {
          // Aborted from outside, or left with an operation active: start afresh next time.
          if (session.closed) await this.#dropSession();
          if (!isSessionLost(error)) throw error;
          await this.#dropSession();
          const result = await op(await this.#ensureSession());
          this.#present = true;
          return result;
        }
      } catch (error) {
        if (error instanceof TokenNotPresentError || isSessionLost(error)) this.#present = false;
        throw error;
      }
    }, signal);
  }

  async #ensureSession(): Promise<TokenSession> {
    if (this.#session) return this.#session;
    if (this.#pinRejected) throw this.#pinRejected;
    try {
      const session = await this.#openSession();
      this.#session = session;
      this.#loggedIn = typeof this.#options.pin === 'function';
      this.#wasConnected = true;
      return session;
    } catch (error) {
      if (isPinRejection(error)) this.#pinRejected = error;
      throw error;
    }
  }

  async #openSession(): Promise<TokenSession> {
    const { tokenLabel, pin } = this.#options;
    // Only a stored PIN logs in at open; a PIN pad or a PIN per request logs in when a signature needs it.
    const user = typeof pin === 'function' ? this.#userSecret(undefined) : null;
    try {
      return await TokenSession.open(this.#module, tokenLabel, user);
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
      return TokenSession.open(this.#module, tokenLabel, user);
    }
  }

  async #dropSession(): Promise<void> {
    const session = this.#session;
    this.#session = null;
    this.#keys = null;
    this.#loggedIn = false;
    if (session) await session.close();
  }
}

/**
 * Loads the module (once per process), finds the token by label, opens a session and, with a
 * stored PIN, logs in. Every failure is a ChipError naming the problem (module missing, token not
 * present, PIN incorrect or locked), never the PIN.
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
