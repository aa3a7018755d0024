/**
 * Reads the signing keys on a token and matches each to its certificate, public key and chain.
 * PKCS#11 ties the objects of one credential together by an equal CKA_ID (v2.40 §4.4, the
 * convention PKCS#15 and every vendor tool follow).
 */
import { createPublicKey } from 'node:crypto';
import { ChipError } from '../../errors/errors';
import type { ChipKey, ChipKeyAlgorithm } from '../types';
import {
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
import type { TokenSession } from './token-session';

export interface InventoryEntry {
  key: ChipKey;
  /** Object handle of the private key, valid for the session that read it. */
  handle: bigint;
}

interface Certificate {
  id: string;
  der: Uint8Array;
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

export async function readKeyInventory(session: TokenSession): Promise<InventoryEntry[]> {
  const certificates: Certificate[] = [];
  for (const { attributes } of await readObjects(session, CKO_CERTIFICATE, [CKA_ID, CKA_VALUE, CKA_CERTIFICATE_TYPE])) {
    const der = attributes.get(CKA_VALUE);
    if (!der || ulongValue(attributes.get(CKA_CERTIFICATE_TYPE)) !== CKC_X_509) continue;
    certificates.push({ id: toHex(attributes.get(CKA_ID) ?? new Uint8Array()), der });
  }
  const publicKeys = new Map<string, Attributes>();
  for (const { attributes } of await readObjects(session, CKO_PUBLIC_KEY, [CKA_ID, CKA_EC_POINT, CKA_MODULUS, CKA_PUBLIC_EXPONENT])) {
    const id = toHex(attributes.get(CKA_ID) ?? new Uint8Array());
    if (!publicKeys.has(id)) publicKeys.set(id, attributes);
  }
  const privateTypes = [CKA_ID, CKA_LABEL, CKA_KEY_TYPE, CKA_EC_PARAMS, CKA_MODULUS, CKA_PUBLIC_EXPONENT];
  const pool = certificates.map((c) => c.der);
  const entries: InventoryEntry[] = [];
  for (const { handle, attributes } of await readObjects(session, CKO_PRIVATE_KEY, privateTypes, true)) {
    const id = toHex(attributes.get(CKA_ID) ?? new Uint8Array());
    // signDigest addresses keys by CKA_ID, so a key without one (or a duplicate) is unusable.
    if (id === '' || entries.some((e) => e.key.id === id)) continue;
    const certificate = certificates.find((c) => c.id === id)?.der ?? null;
    const publicKey = publicKeyOf(attributes, publicKeys.get(id), certificate);
    if (!publicKey) continue;
    entries.push({
      handle,
      key: {
        id,
        label: Buffer.from(attributes.get(CKA_LABEL) ?? new Uint8Array()).toString('utf8'),
        algorithm: publicKey.algorithm,
        publicKey: publicKey.bytes,
        certificate,
        chain: certificate ? buildChain(certificate, pool) : [],
      },
    });
  }
  return entries.sort((a, b) => a.key.id.localeCompare(b.key.id));
}

/** Public key in the ChipKey form; null for key types and curves we do not sign with. */
function publicKeyOf(priv: Attributes, pub: Attributes | undefined, certificate: Uint8Array | null): { algorithm: ChipKeyAlgorithm; bytes: Uint8Array } | null {
  const keyType = ulongValue(priv.get(CKA_KEY_TYPE));
  let spki: Uint8Array | null = null;
  try {
    spki = certificate ? readCertificate(certificate).spki.raw : null;
  } catch (error) {
    if (!(error instanceof DerError)) throw error;
  }
  // The token's own key material first; the certificate's only when the token hides it.
  if (keyType === CKK_RSA) {
    const modulus = priv.get(CKA_MODULUS) ?? pub?.get(CKA_MODULUS);
    const exponent = priv.get(CKA_PUBLIC_EXPONENT) ?? pub?.get(CKA_PUBLIC_EXPONENT);
    if (modulus && exponent) return { algorithm: 'rsa', bytes: rsaSpki(modulus, exponent) };
    return spki ? { algorithm: 'rsa', bytes: spki } : null;
  }
  if (keyType !== CKK_EC) return null;
  const params = priv.get(CKA_EC_PARAMS);
  const curve = params ? namedCurveOf(params) : null;
  if (!curve) return null;
  const encodedPoint = pub?.get(CKA_EC_POINT);
  let point: Uint8Array | null;
  try {
    point = encodedPoint ? unwrapEcPoint(encodedPoint) : spki ? pointFromSpki(spki) : null;
  } catch (cause) {
    throw new ChipError(`key ${toHex(priv.get(CKA_ID) ?? new Uint8Array())}: ${(cause as Error).message}`, { cause });
  }
  if (!point) return null;
  if (curve === 'secp256k1') return { algorithm: 'secp256k1', bytes: point };
  return { algorithm: 'p256', bytes: p256Spki(point) };
}
