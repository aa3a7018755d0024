/**
 * The hashes, MACs and signature checks the client needs, from the platform: `node:crypto` where
 * Node is underneath (reached through `process.getBuiltinModule`, as transport.ts reaches
 * node:http, so a bundler for the browser has nothing to resolve), else WebCrypto
 * (`crypto.subtle`: browsers, Electron's renderer, Deno). node:crypto hashes a document in parts
 * without joining them, and its HMAC costs microseconds where WebCrypto's `importKey` + `sign`
 * costs a round through the event loop; the answers are the same, which the client's tests check
 * for both.
 */

/** The signatures the service makes in a PAdES CMS (RFC 5652 SignerInfo): RSA PKCS#1 v1.5 or ECDSA P-256, both over SHA-256. */
export type CmsSignatureAlgorithm = 'rsa-pkcs1-sha256' | 'ecdsa-p256-sha256';

export interface CryptoBackend {
  readonly name: 'node:crypto' | 'webcrypto';
  /** SHA-256 of the parts, in order, as if joined. */
  sha256(parts: readonly Uint8Array[]): Promise<Uint8Array>;
  hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
  randomBytes(length: number): Uint8Array;
  /**
   * Whether `signature` over `data` verifies with the SubjectPublicKeyInfo `spki` (DER). An ECDSA
   * signature is given as DER (Ecdsa-Sig-Value, RFC 5480 / RFC 5753), as a CMS carries it.
   */
  verify(algorithm: CmsSignatureAlgorithm, spki: Uint8Array, data: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

// The parts of node:crypto this file uses; the package compiles without Node's types.
interface NodeHash {
  update(data: Uint8Array): NodeHash;
  digest(): Uint8Array;
}
interface NodeCrypto {
  createHash(algorithm: 'sha256'): NodeHash;
  createHmac(algorithm: 'sha256', key: Uint8Array): NodeHash;
  randomBytes(length: number): Uint8Array;
  verify(algorithm: 'sha256', data: Uint8Array, key: { key: Uint8Array; format: 'der'; type: 'spki' }, signature: Uint8Array): boolean;
}

// The parts of WebCrypto this file uses (lib.dom's types are not there when Node's are). Its
// BufferSource takes any view, so bytes go in as they are, never copied.
interface Subtle {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
  importKey(format: 'raw' | 'spki', key: Uint8Array, algorithm: object, extractable: false, usages: ['sign'] | ['verify']): Promise<unknown>;
  sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
  verify(algorithm: string | object, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
}

/** node:crypto as a CryptoBackend, or null where there is no Node underneath. */
export function nodeCryptoBackend(): CryptoBackend | null {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof getBuiltin !== 'function') return null;
  const c = getBuiltin('node:crypto') as NodeCrypto | undefined;
  if (!c) return null;
  const bytes = (b: Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return {
    name: 'node:crypto',
    sha256: async (parts) => {
      const h = c.createHash('sha256');
      for (const p of parts) h.update(p);
      return bytes(h.digest());
    },
    hmacSha256: async (key, data) => bytes(c.createHmac('sha256', key).update(data).digest()),
    randomBytes: (length) => bytes(c.randomBytes(length)),
    verify: async (_algorithm, spki, data, signature) => {
      try {
        // RSA keys verify PKCS#1 v1.5 by default, EC keys a DER signature by default.
        return c.verify('sha256', data, { key: spki, format: 'der', type: 'spki' }, signature);
      } catch {
        return false; // a key or signature that does not parse verifies nothing
      }
    },
  };
}

/** WebCrypto (`globalThis.crypto.subtle`) as a CryptoBackend. */
export function webCryptoBackend(): CryptoBackend {
  const webCrypto = (globalThis as unknown as { crypto?: { subtle?: Subtle; getRandomValues(array: Uint8Array): Uint8Array } }).crypto;
  if (!webCrypto?.subtle) throw new Error('neither node:crypto nor WebCrypto (crypto.subtle) is available: the client cannot sign requests or check answers here');
  const subtle = webCrypto.subtle;
  const random = webCrypto.getRandomValues.bind(webCrypto);
  return {
    name: 'webcrypto',
    sha256: async (parts) => {
      const joined = parts.length === 1 ? parts[0]! : join(parts);
      return new Uint8Array(await subtle.digest('SHA-256', joined));
    },
    hmacSha256: async (key, data) => {
      const k = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return new Uint8Array(await subtle.sign('HMAC', k, data));
    },
    randomBytes: (length) => random(new Uint8Array(length)),
    verify: async (algorithm, spki, data, signature) => {
      try {
        if (algorithm === 'rsa-pkcs1-sha256') {
          const key = await subtle.importKey('spki', spki, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
          return await subtle.verify('RSASSA-PKCS1-v1_5', key, signature, data);
        }
        const raw = ecdsaDerToRaw(signature, 32);
        if (!raw) return false;
        const key = await subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
        return await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, data);
      } catch {
        return false;
      }
    },
  };
}

/** node:crypto where Node is underneath, else WebCrypto. */
export function defaultCryptoBackend(): CryptoBackend {
  return nodeCryptoBackend() ?? webCryptoBackend();
}

function join(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 5480 §2.2 / X9.62) as the fixed-width
 * r‖s WebCrypto verifies (IEEE P1363); null when it is not that shape.
 */
export function ecdsaDerToRaw(der: Uint8Array, width: number): Uint8Array | null {
  if (der.length < 8 || der[0] !== 0x30 || der[1]! >= 0x80 || der[1] !== der.length - 2) return null;
  const out = new Uint8Array(2 * width);
  let at = 2;
  for (let i = 0; i < 2; i += 1) {
    if (der[at] !== 0x02) return null;
    const len = der[at + 1]!;
    if (len === 0 || len >= 0x80 || at + 2 + len > der.length) return null;
    let v = der.subarray(at + 2, at + 2 + len);
    while (v.length > 1 && v[0] === 0) v = v.subarray(1);
    if (v.length > width) return null;
    out.set(v, (i + 1) * width - v.length);
    at += 2 + len;
  }
  return at === der.length ? out : null;
}
