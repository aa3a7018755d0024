/**
 * One session on one token, found by its label (token-discovery.ts). Calls on a session must not
 * interleave (v2.40 §5.6: one active operation per session), which the chip's queue guarantees;
 * only `abort` may come from outside it (a request that ended while the person at a PIN pad has
 * not typed).
 */
import type { Pkcs11Api } from './bindings';
import { CKF_SERIAL_SESSION, CKU_CONTEXT_SPECIFIC, CKU_USER } from './constants';
import type { Pkcs11Module } from './module-registry';
import type { NativeArena } from './native-memory';
import { loginRefusal, pinStateOf, type PinState } from './pin-flags';
import { findToken, readTokenFlags } from './token-discovery';
import { CKR_BUFFER_TOO_SMALL, CKR_USER_ALREADY_LOGGED_IN, check } from './return-codes';

export type TemplateValue = { type: number } & ({ ulong: number } | { bool: boolean } | { bytes: Uint8Array });

/**
 * What a login presents: a PIN (UTF-8 bytes, made for this one login and zeroed after it), or
 * `'pad'`: a NULL PIN, so the reader's PIN pad asks the person (CKF_PROTECTED_AUTHENTICATION_PATH,
 * v2.40 §5.6 C_Login).
 */
export type LoginSecret = (() => Uint8Array) | 'pad';

// C_GetAttributeValue reports these per attribute and still fills the others (v2.40 §5.7).
const CKR_ATTRIBUTE_SENSITIVE = 0x11;
const CKR_ATTRIBUTE_TYPE_INVALID = 0x12;
const FIND_BATCH = 64;

export class TokenSession {
  readonly label: string;
  /** The reader has a PIN pad (CKF_PROTECTED_AUTHENTICATION_PATH). */
  readonly pinPad: boolean;
  readonly #api: Pkcs11Api;
  readonly #slot: bigint;
  readonly #handle: bigint;
  #closed = false;
  #spoiled = false;

  private constructor(api: Pkcs11Api, token: { label: string; pinPad: boolean; slot: bigint }, handle: bigint) {
    this.#api = api;
    this.label = token.label;
    this.pinPad = token.pinPad;
    this.#slot = token.slot;
    this.#handle = handle;
  }

  /**
   * Finds the token and opens a serial read-only session; logs the user in with `user` unless it
   * is null (a chip whose PIN comes with each request logs in per signature). A stored PIN is not
   * presented to a token whose flags say the next wrong one locks it, or that is locked.
   */
  static async open(module: Pkcs11Module, tokenLabel: string | undefined, user: LoginSecret | null): Promise<TokenSession> {
    const api = module.api;
    const token = await findToken(api, tokenLabel);
    if (user !== null) {
      const refusal = loginRefusal(pinStateOf(token.flags), user === 'pad' ? 'pad' : 'stored', token.label);
      if (refusal) throw refusal;
    }
    const arena = api.arena();
    let handle: bigint;
    try {
      const out = arena.ulong(0);
      check('C_OpenSession', await api.call('C_OpenSession', token.slot, CKF_SERIAL_SESSION, null, null, out), token.label);
      handle = arena.readUlong(out);
    } finally {
      arena.free();
    }
    const session = new TokenSession(api, token, handle);
    if (user === null) return session;
    try {
      await session.login(user);
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  /**
   * C_Login as the user (`CKU_USER`) or for the operation just initialised
   * (`CKU_CONTEXT_SPECIFIC`). The PIN lives only in a native block wiped by arena.free() and in
   * the bytes `secret` made, zeroed here; it is never put in a message (Pkcs11CallError names
   * the code, not the arguments).
   */
  async login(secret: LoginSecret, userType: typeof CKU_USER | typeof CKU_CONTEXT_SPECIFIC = CKU_USER): Promise<void> {
    const arena = this.#api.arena();
    try {
      let pointer: bigint | null = null;
      let length = 0;
      if (secret !== 'pad') {
        const bytes = secret();
        pointer = arena.bytes(bytes);
        length = bytes.length;
        bytes.fill(0);
      }
      const rv = await this.#api.call('C_Login', this.#handle, userType, pointer, length);
      // Login state is per application and token (v2.40 §5.6): a reconnect may find it kept.
      check(userType === CKU_USER ? 'C_Login' : 'C_Login(CKU_CONTEXT_SPECIFIC)', rv, this.label, userType === CKU_USER ? [CKR_USER_ALREADY_LOGGED_IN] : []);
    } finally {
      arena.free();
    }
  }

  /**
   * The user PIN's state as the token reports it now (one C_GetTokenInfo), or null when it does
   * not answer (the login that follows then fails on its own).
   */
  async pinState(): Promise<PinState | null> {
    const flags = await readTokenFlags(this.#api, this.#slot);
    return flags === null ? null : pinStateOf(flags);
  }

  /** Ends the user's login (a PIN given per request is not left standing). */
  async logout(): Promise<void> {
    await this.#api.call('C_Logout', this.#handle).catch(() => undefined);
  }

  async findObjects(template: TemplateValue[]): Promise<bigint[]> {
    const api = this.#api;
    const arena = api.arena();
    try {
      const tmpl = this.#encodeTemplate(arena, template);
      check('C_FindObjectsInit', await api.call('C_FindObjectsInit', this.#handle, tmpl, template.length), this.label);
      const handles: bigint[] = [];
      const ulongSize = api.koffi.sizeof('unsigned long');
      const batch = arena.alloc(FIND_BATCH * ulongSize);
      const count = arena.ulong(0);
      try {
        for (;;) {
          check('C_FindObjects', await api.call('C_FindObjects', this.#handle, batch, FIND_BATCH, count), this.label);
          const n = Number(arena.readUlong(count));
          for (let i = 0; i < n; i += 1) handles.push(arena.readUlong(batch, i * ulongSize));
          if (n < FIND_BATCH) break;
        }
      } finally {
        await api.call('C_FindObjectsFinal', this.#handle);
      }
      return handles;
    } finally {
      arena.free();
    }
  }

  /** Reads attributes with the two-call pattern; an attribute the object lacks maps to null. */
  async getAttributes(object: bigint, types: number[]): Promise<Map<number, Uint8Array | null>> {
    const api = this.#api;
    const arena = api.arena();
    const accept = [CKR_ATTRIBUTE_SENSITIVE, CKR_ATTRIBUTE_TYPE_INVALID];
    try {
      const size = api.koffi.sizeof(api.types.attribute);
      const tmpl = arena.alloc(size * types.length);
      types.forEach((type, i) => arena.encode(tmpl, i * size, api.types.attribute, { type, pValue: null, ulValueLen: 0 }));
      check('C_GetAttributeValue', await api.call('C_GetAttributeValue', this.#handle, object, tmpl, types.length), this.label, accept);
      const lengths = types.map((_, i) => arena.readUlong(tmpl, i * size + api.koffi.offsetof(api.types.attribute, 'ulValueLen')));
      const buffers = lengths.map((length) => (length === api.unavailable ? null : arena.alloc(Number(length))));
      types.forEach((type, i) => {
        const pValue = buffers[i] ?? null;
        arena.encode(tmpl, i * size, api.types.attribute, { type, pValue, ulValueLen: pValue === null ? 0 : lengths[i] });
      });
      check('C_GetAttributeValue', await api.call('C_GetAttributeValue', this.#handle, object, tmpl, types.length), this.label, accept);
      const result = new Map<number, Uint8Array | null>();
      types.forEach((type, i) => {
        const pointer = buffers[i];
        const length = arena.readUlong(tmpl, i * size + api.koffi.offsetof(api.types.attribute, 'ulValueLen'));
        result.set(type, pointer === undefined || pointer === null || length === api.unavailable ? null : arena.read(pointer, Number(length)));
      });
      return result;
    } finally {
      arena.free();
    }
  }

  /**
   * C_SignInit + C_Sign with a parameterless mechanism; one C_Sign call, grown once if too small.
   * With `context` (an always-authenticate key), C_Login(CKU_CONTEXT_SPECIFIC) comes right after
   * C_SignInit (v2.40 §4.9, §5.6): the token wants the PIN for this one signature.
   * `beforeSign` runs right before C_Sign, the call after which the signature exists: it may throw
   * to make none (the operation is then left active, and the chip drops this session).
   */
  async sign(key: bigint, mechanism: number, data: Uint8Array, context?: LoginSecret, beforeSign?: () => void): Promise<Uint8Array> {
    const api = this.#api;
    const arena = api.arena();
    try {
      const mech = arena.alloc(api.koffi.sizeof(api.types.mechanism));
      arena.encode(mech, 0, api.types.mechanism, { mechanism, pParameter: null, ulParameterLen: 0 });
      check('C_SignInit', await api.call('C_SignInit', this.#handle, mech, key), this.label);
      // From here an error leaves the operation active (v2.40 has no way to cancel it but closing
      // the session): the chip drops this session rather than meet CKR_OPERATION_ACTIVE next.
      this.#spoiled = true;
      if (context) await this.login(context, CKU_CONTEXT_SPECIFIC);
      beforeSign?.();
      const input = arena.bytes(data);
      let capacity = 1024; // an 8192-bit RSA signature
      for (;;) {
        const out = arena.alloc(capacity);
        const length = arena.ulong(capacity);
        const rv = await api.call('C_Sign', this.#handle, input, data.length, out, length);
        const produced = Number(arena.readUlong(length));
        // CKR_BUFFER_TOO_SMALL keeps the operation active and reports the size (v2.40 §5.2).
        if (rv === CKR_BUFFER_TOO_SMALL && produced > capacity) {
          capacity = produced;
          continue;
        }
        check('C_Sign', rv, this.label);
        this.#spoiled = false;
        return arena.read(out, produced);
      }
    } finally {
      arena.free();
    }
  }

  /** Logs out and closes; errors are ignored since the session may already be gone. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#api.call('C_Logout', this.#handle).catch(() => undefined);
    await this.#api.call('C_CloseSession', this.#handle).catch(() => undefined);
  }

  /**
   * Closes the session now, from outside the chip's queue: a C_Login waiting on a PIN pad for a
   * request that has ended returns (the module cancels it, CKR_FUNCTION_CANCELED or a closed
   * session), so the token is free for the next request. Modules initialised with
   * CKF_OS_LOCKING_OK take calls from several threads.
   */
  async abort(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#api.call('C_CloseSession', this.#handle).catch(() => undefined);
  }

  /** Closed, or left with a signing operation active by a failure: not to be used again. */
  get closed(): boolean {
    return this.#closed || this.#spoiled;
  }

  #encodeTemplate(arena: NativeArena, template: TemplateValue[]): bigint {
    const api = this.#api;
    const size = api.koffi.sizeof(api.types.attribute);
    const tmpl = arena.alloc(size * Math.max(template.length, 1));
    template.forEach((attribute, i) => {
      let pValue: bigint;
      let ulValueLen: number;
      if ('ulong' in attribute) {
        pValue = arena.ulong(attribute.ulong);
        ulValueLen = api.koffi.sizeof('unsigned long');
      } else if ('bool' in attribute) {
        pValue = arena.bytes(Uint8Array.of(attribute.bool ? 1 : 0)); // CK_BBOOL is one byte
        ulValueLen = 1;
      } else {
        pValue = arena.bytes(attribute.bytes);
        ulValueLen = attribute.bytes.length;
      }
      arena.encode(tmpl, i * size, api.types.attribute, { type: attribute.type, pValue, ulValueLen });
    });
    return tmpl;
  }
}
