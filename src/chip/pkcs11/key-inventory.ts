/**
 * Reads the signing keys on a token and matches each to its certificate, public key and chain.
 * PKCS#11 ties the objects of one credential together by an equal CKA_ID (v2.40 §4.4, the
 * convention PKCS#15 and most vendor tools follow); some cards and middleware write different
 * CKA_IDs on the certificate, or none, so a certificate is matched by its public key when the
 * CKA_ID does not give it.
 *
 * Without a login (a chip whose PIN comes with each request, or from a PIN pad, is not logged in
 * until it signs) private keys are usually invisible (CKA_PRIVATE): the keys are then listed from
 * the public key objects and the end-entity certificates, and the private key is found by the
 * same identity once the signature's login has happened.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { ChipError } from '../../domain/errors';
import type { ChipKey, ChipKeyAlgorithm } from '../types';
import {
  CKA_ALWAYS_AUTHENTICATE,
  CKA_CERTIFICATE_TYPE,
  CKA_CLASS,
  CKA_EC_PARAMS,
  CKA_EC_POINT,
  CKA_ID,
  CKA_KEY_TYPE,
  CKA_LABEL,
  CKA_MODULUS,
  CKA_PUBLIC_EXPONENT,
  CKA_SIGN,
  CKA_VALUE,
  CKC_X_509,
  CKK_EC,
  CKK_RSA,
  CKO_CERTIFICATE,
  CKO_PRIVATE_KEY,
  CKO_PUBLIC_KEY,
} from './constants';
import { readCertificate } from '../../der/certificate-fields';
import { bytesEqual, DerError, toHex } from '../../der/der';
import { namedCurveOf, unwrapEcPoint } from '../../der/keys';
import { isCaCertificate } from '../../der/x509-extensions';
import type { TokenSession } from './token-session';

export interface InventoryEntry {
  key: ChipKey;
  /** Object handle of the private key, valid for the session that read it; null when it is not visible (no login yet). */
  handle: bigint | null;
}

interface PublicKey {
  algorithm: ChipKeyAlgorithm;
  /** rsa/p256: SubjectPublicKeyInfo DER; secp256k1: the uncompressed point (ChipKey.publicKey's form). */
  bytes: Uint8Array;
}

interface Certificate {
  id: string;
  der: Uint8Array;
  key: PublicKey | null;
  ca: boolean;
}

type Attributes = Map<number, Uint8Array | null>;

/** CK_ULONG attribute bytes in the platform's (little-endian on every target we ship) order. */
function ulongValue(bytes: Uint8Array | null | undefined): number | null {
  if (!bytes || bytes.length === 0) return null;
  let value = 0;
  for (let i = bytes.length - 1; i >= 0; i -= 1) value = value * 256 + (bytes[i] ?? 0);
  return value;
}

function base64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function rsaSpki(modulus: Uint8Array, exponent: Uint8Array): Uint8Array {
  const key = createPublicKey({ key: { kty: 'RSA', n: base64Url(modulus), e: base64Url(exponent) }, format: 'jwk' });
  return new Uint8Array(key.export({ type: 'spki', format: 'der' }));
}

function p256Spki(point: Uint8Array): Uint8Array {
  const jwk = { kty: 'EC', crv: 'P-256', x: base64Url(point.subarray(1, 33)), y: base64Url(point.subarray(33, 65)) };
  return new Uint8Array(createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' }));
}

/** The uncompressed point inside an EC SubjectPublicKeyInfo (BIT STRING with 0 unused bits). */
function pointFromSpki(spki: Uint8Array): Uint8Array | null {
  const point = spki.subarray(spki.length - 65);
  return spki[spki.length - 66] === 0x00 && point[0] === 0x04 ? point.slice() : null;
}

/** A certificate's public key in ChipKey form, re-encoded so it compares with the token's. */
function certificateKey(spki: Uint8Array): PublicKey | null {
  try {
    const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
    if (key.asymmetricKeyType === 'rsa') return { algorithm: 'rsa', bytes: new Uint8Array(key.export({ type: 'spki', format: 'der' })) };
    if (key.asymmetricKeyType !== 'ec') return null;
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return { algorithm: 'p256', bytes: new Uint8Array(key.export({ type: 'spki', format: 'der' })) };
    if (curve === 'secp256k1') {
      const point = pointFromSpki(spki);
      return point ? { algorithm: 'secp256k1', bytes: point } : null;
    }
    return null;
  } catch {
    return null; // a key type or encoding we do not sign with
  }
}

function sameKey(a: PublicKey | null, b: PublicKey | null): boolean {
  return a !== null && b !== null && a.algorithm === b.algorithm && bytesEqual(a.bytes, b.bytes);
}

/**
 * The id a key is addressed by (ChipKey.id): its CKA_ID as lowercase hex, or, for a key the
 * token gave no CKA_ID, one derived from its public key (`pk-` and 16 hex digits of its SHA-256),
 * stable across sessions like a CKA_ID.
 */
export function keyIdOf(ckaId: string, key: PublicKey): string {
  return ckaId !== '' ? ckaId : `pk-${createHash('sha256').update(key.bytes).digest('hex').slice(0, 16)}`;
}

/** Raw DER issuer and subject Names; null for a certificate that does not parse (it is skipped). */
function namesOf(certificate: Uint8Array): { issuer: Uint8Array; subject: Uint8Array } | null {
  try {
    const f = readCertificate(certificate);
    return { issuer: f.issuer.raw, subject: f.subject.raw };
  } catch (error) {
    if (error instanceof DerError) return null;
    throw error;
  }
}

/** Certificates that lead from `leaf` to a root by issuer = subject (raw DER), issuer first. */
export function buildChain(leaf: Uint8Array, pool: Uint8Array[]): Uint8Array[] {
  const chain: Uint8Array[] = [];
  const used = new Set([toHex(leaf)]);
  let current = namesOf(leaf);
  while (current && !bytesEqual(current.issuer, current.subject)) {
    const issuer = current.issuer;
    const parent = pool.find((candidate) => !used.has(toHex(candidate)) && bytesEqual(namesOf(candidate)?.subject ?? new Uint8Array(), issuer));
    if (!parent) break;
    chain.push(parent);
    used.add(toHex(parent));
    current = namesOf(parent);
  }
  return chain;
}

async function readObjects(session: TokenSession, objectClass: number, types: number[], sign = false): Promise<{ handle: bigint; attributes: Attributes }[]> {
  const template = [{ type: CKA_CLASS, ulong: objectClass }, ...(sign ? [{ type: CKA_SIGN, bool: true }] : [])];
  const result: { handle: bigint; attributes: Attributes }[] = [];
  for (const handle of await session.findObjects(template)) {
    result.push({ handle, attributes: await session.getAttributes(handle, types) });
  }
  return result;
}

function idOf(attributes: Attributes): string {
  return toHex(attributes.get(CKA_ID) ?? new Uint8Array());
}

/** The key a key object (private or public) carries itself; null when it carries none we use. */
function ownKey(attributes: Attributes, point: Uint8Array | null): PublicKey | null {
  const keyType = ulongValue(attributes.get(CKA_KEY_TYPE));
  if (keyType === CKK_RSA) {
    const modulus = attributes.get(CKA_MODULUS);
    const exponent = attributes.get(CKA_PUBLIC_EXPONENT);
    return modulus && exponent ? { algorithm: 'rsa', bytes: rsaSpki(modulus, exponent) } : null;
  }
  if (keyType !== CKK_EC || !point) return null;
  const params = attributes.get(CKA_EC_PARAMS);
  const curve = params ? namedCurveOf(params) : null;
  if (curve === 'secp256k1') return { algorithm: 'secp256k1', bytes: point };
  if (curve === 'p256') return { algorithm: 'p256', bytes: p256Spki(point) };
  return null;
}

/** The key type and curve of a private key, for a key whose public half comes from elsewhere. */
function algorithmOf(attributes: Attributes): ChipKeyAlgorithm | null {
  const keyType = ulongValue(attributes.get(CKA_KEY_TYPE));
  if (keyType === CKK_RSA) return 'rsa';
  if (keyType !== CKK_EC) return null;
  const params = attributes.get(CKA_EC_PARAMS);
  return params ? namedCurveOf(params) : null;
}

export async function readKeyInventory(session: TokenSession): Promise<InventoryEntry[]> {
  const certificates: Certificate[] = [];
  for (const { attributes } of await readObjects(session, CKO_CERTIFICATE, [CKA_ID, CKA_VALUE, CKA_CERTIFICATE_TYPE])) {
    const der = attributes.get(CKA_VALUE);
    if (!der || ulongValue(attributes.get(CKA_CERTIFICATE_TYPE)) !== CKC_X_509) continue;
    let fields;
    try {
      fields = readCertificate(der);
    } catch (error) {
      if (error instanceof DerError) continue; // a certificate that does not parse signs nothing
      throw error;
    }
    certificates.push({ id: idOf(attributes), der, key: certificateKey(fields.spki.raw), ca: isCaCertificate(fields) });
  }
  const publicKeys: { id: string; key: PublicKey }[] = [];
  for (const { attributes } of await readObjects(session, CKO_PUBLIC_KEY, [CKA_ID, CKA_KEY_TYPE, CKA_EC_PARAMS, CKA_EC_POINT, CKA_MODULUS, CKA_PUBLIC_EXPONENT])) {
    const encodedPoint = attributes.get(CKA_EC_POINT);
    let point: Uint8Array | null = null;
    try {
      point = encodedPoint ? unwrapEcPoint(encodedPoint) : null;
    } catch (cause) {
      throw new ChipError(`public key ${idOf(attributes)}: ${(cause as Error).message}`, { cause });
    }
    const key = ownKey(attributes, point);
    if (key) publicKeys.push({ id: idOf(attributes), key });
  }
  const pool = certificates.map((c) => c.der);
  const certificateFor = (id: string, key: PublicKey): Certificate | null =>
    certificates.find((c) => c.id !== '' && c.id === id && sameKey(c.key, key)) ?? certificates.find((c) => sameKey(c.key, key)) ?? null;
  const entry = (id: string, label: string, key: PublicKey, handle: bigint | null, pinPerSignature: boolean | undefined): InventoryEntry => {
    const certificate = certificateFor(id, key)?.der ?? null;
    return {
      handle,
      key: {
        id,
        label,
        algorithm: key.algorithm,
        publicKey: key.bytes,
        certificate,
        chain: certificate ? buildChain(certificate, pool) : [],
        ...(pinPerSignature === undefined ? {} : { pinPerSignature }),
      },
    };
  };

  const entries: InventoryEntry[] = [];
  const privateTypes = [CKA_ID, CKA_LABEL, CKA_KEY_TYPE, CKA_EC_PARAMS, CKA_MODULUS, CKA_PUBLIC_EXPONENT, CKA_ALWAYS_AUTHENTICATE];
  for (const { handle, attributes } of await readObjects(session, CKO_PRIVATE_KEY, privateTypes, true)) {
    const ckaId = idOf(attributes);
    const algorithm = algorithmOf(attributes);
    if (!algorithm) continue;
    // The token's own key material first (an RSA private key carries its modulus), then the
    // public key object with the same CKA_ID, then the certificate with the same CKA_ID.
    const key =
      ownKey(attributes, null) ??
      publicKeys.find((p) => p.id !== '' && p.id === ckaId && p.key.algorithm === algorithm)?.key ??
      certificates.find((c) => c.id !== '' && c.id === ckaId && c.key?.algorithm === algorithm)?.key ??
      null;
    // An EC key with neither (no public key object, a certificate under another CKA_ID) cannot be
    // told apart from another of its curve without signing with it: it is not listed.
    if (!key) continue;
    const id = keyIdOf(ckaId, key);
    if (entries.some((e) => e.key.id === id)) continue; // a duplicate CKA_ID addresses neither reliably
    const alwaysAuthenticate = attributes.get(CKA_ALWAYS_AUTHENTICATE);
    entries.push(entry(id, Buffer.from(attributes.get(CKA_LABEL) ?? new Uint8Array()).toString('utf8'), key, handle, alwaysAuthenticate ? alwaysAuthenticate[0] === 1 : false));
  }
  if (entries.length === 0) {
    // Not logged in (or no private key visible): the keys as the public objects describe them.
    const listed = (key: PublicKey) => entries.some((e) => sameKey({ algorithm: e.key.algorithm, bytes: e.key.publicKey }, key));
    for (const p of publicKeys) {
      if (listed(p.key)) continue;
      entries.push(entry(keyIdOf(p.id, p.key), '', p.key, null, undefined));
    }
    for (const c of certificates) {
      if (c.ca || !c.key || listed(c.key)) continue;
      entries.push(entry(keyIdOf(c.id, c.key), '', c.key, null, undefined));
    }
  }
  return entries.sort((a, b) => a.key.id.localeCompare(b.key.id));
}
