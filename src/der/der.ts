/**
 * DER (X.690) helpers shared by pades/ and pki/ for CMS, RFC 3161 and X.509 byte work. We build and read DER by hand
 * because the exact bytes matter: signed attributes are signed as encoded (RFC 5652 §5.4) and
 * issuer names must be copied byte for byte (RFC 5280 §7.1). Definite lengths only (DER, §10.1).
 */

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
}

/** X.690 §8.1.3: short form below 128, else long form with the minimal number of length octets. */
function encodeLength(n: number): Uint8Array {
  if (n < 0x80) return Uint8Array.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

export function tlv(tag: number, ...content: Uint8Array[]): Uint8Array {
  const body = concat(content);
  return concat([Uint8Array.of(tag), encodeLength(body.length), body]);
}

export const seq = (...c: Uint8Array[]): Uint8Array => tlv(TAG.SEQUENCE, ...c);
export const octets = (b: Uint8Array): Uint8Array => tlv(TAG.OCTET_STRING, b);
export const derNull = (): Uint8Array => Uint8Array.of(0x05, 0x00);
export const bool = (v: boolean): Uint8Array => Uint8Array.of(0x01, 0x01, v ? 0xff : 0x00);
/** Context-specific constructed tag [n] (EXPLICIT wrapper, or IMPLICIT over a constructed type). */
export const ctx = (n: number, ...c: Uint8Array[]): Uint8Array => tlv(0xa0 | n, ...c);

/** X.690 §11.6: SET OF components sorted as octet strings, shorter ones padded with trailing zeros. */
export function compareDer(a: Uint8Array, b: Uint8Array): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function setOf(...items: Uint8Array[]): Uint8Array {
  return tlv(TAG.SET, ...[...items].sort(compareDer));
}

/** X.690 §8.3: two's complement, minimal octets; unsigned magnitudes get a 0x00 when the top bit is set. */
export function unsignedIntegerContent(magnitude: Uint8Array): Uint8Array {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const m = magnitude.length === 0 ? Uint8Array.of(0) : magnitude.subarray(i);
  return (m[0]! & 0x80) !== 0 ? concat([Uint8Array.of(0), m]) : Uint8Array.from(m);
}

export function uint(magnitude: Uint8Array | bigint | number): Uint8Array {
  if (typeof magnitude !== 'object') {
    let hex = BigInt(magnitude).toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    magnitude = new Uint8Array(Buffer.from(hex, 'hex'));
  }
  return tlv(TAG.INTEGER, unsignedIntegerContent(magnitude));
}

export function oid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map((a) => BigInt(a));
  const [a0, a1, ...rest] = arcs;
  if (a0 === undefined || a1 === undefined) throw new RangeError(`bad OID ${dotted}`);
  const out: number[] = [];
  for (const arc of [a0 * 40n + a1, ...rest]) {
    const group: number[] = [];
    let v = arc;
    do {
      group.unshift(Number(v & 0x7fn) | (group.length ? 0x80 : 0));
      v >>= 7n;
    } while (v > 0n);
    out.push(...group);
  }
  return tlv(TAG.OID, Uint8Array.from(out));
}

/**
 * The most content octets an OBJECT IDENTIFIER may have here. Every OID this service compares
 * is under 16 (oids.ts); 64 leaves room for long private arcs (a UUID arc, 2.25.x, X.667, is
 * 17 octets), and refuses before any decoding what would cost time for nothing: a 400 KB OID
 * in a CMS took 66 s (on a 2-core machine) when each byte shifted a BigInt.
 */
export const MAX_OID_CONTENT = 64;

/** Largest arc value that can take seven more bits and stay an exact number. */
const SAFE_ARC = Math.floor(Number.MAX_SAFE_INTEGER / 128);

/**
 * X.690 §8.19: subidentifiers of 7 bits per octet, bit 8 set on all but each one's last octet;
 * the first packs the first two arcs (X.690 §8.19.4: 40 * X + Y, X = 2 for anything from 80).
 * Linear: an arc is a number while it fits 53 bits, a BigInt only past that.
 */
export function decodeOid(content: Uint8Array): string {
  if (content.length === 0) throw new DerError('an OBJECT IDENTIFIER has no content octets');
  if (content.length > MAX_OID_CONTENT) {
    throw new DerError(`an OBJECT IDENTIFIER of ${content.length} content octets is over the ${MAX_OID_CONTENT} read`);
  }
  if ((content[content.length - 1]! & 0x80) !== 0) throw new DerError('an OBJECT IDENTIFIER ends inside a subidentifier');
  const arcs: string[] = [];
  let v = 0;
  let big: bigint | null = null;
  for (let i = 0; i < content.length; i++) {
    const byte = content[i]!;
    if (big === null && v > SAFE_ARC) big = BigInt(v);
    if (big === null) v = v * 128 + (byte & 0x7f);
    else big = (big << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) !== 0) continue;
    if (arcs.length === 0) {
      if (big !== null) arcs.push('2', String(big - 80n));
      else if (v < 80) arcs.push(String(Math.floor(v / 40)), String(v % 40));
      else arcs.push('2', String(v - 80));
    } else {
      arcs.push(String(big ?? v));
    }
    v = 0;
    big = null;
  }
  return arcs.join('.');
}

/** A decoded TLV; `raw` is its whole encoding, `content` the value octets (views into the input). */
export interface Der {
  tag: number;
  raw: Uint8Array;
  content: Uint8Array;
}

export class DerError extends Error {}

export function readDer(buf: Uint8Array, offset = 0): Der {
  const tag = buf[offset];
  const first = buf[offset + 1];
  if (tag === undefined || first === undefined) throw new DerError(`truncated DER at offset ${offset}`);
  if ((tag & 0x1f) === 0x1f) throw new DerError(`multi-byte tags are not supported (offset ${offset})`);
  let length = first;
  let header = 2;
  if (first === 0x80) throw new DerError(`indefinite length is not DER (offset ${offset})`);
  if (first > 0x80) {
    const n = first & 0x7f;
    if (n > 4) throw new DerError(`length of ${n} octets is too large (offset ${offset})`);
    length = 0;
    for (let i = 0; i < n; i++) {
      const b = buf[offset + 2 + i];
      if (b === undefined) throw new DerError(`truncated length at offset ${offset}`);
      length = length * 256 + b;
    }
    header += n;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new DerError(`DER element at offset ${offset} runs past the end`);
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end) };
}

/** Reads exactly one element spanning the whole buffer. */
export function readDerExact(buf: Uint8Array): Der {
  const d = readDer(buf, 0);
  if (d.raw.length !== buf.length) throw new DerError(`${buf.length - d.raw.length} trailing bytes after DER`);
  return d;
}

export function children(node: Der): Der[] {
  const out: Der[] = [];
  for (let at = 0; at < node.content.length; ) {
    const d = readDer(node.content, at);
    out.push(d);
    at += d.raw.length;
  }
  return out;
}

export function expectTag(node: Der | undefined, tag: number, what: string): Der {
  if (!node) throw new DerError(`${what} is missing`);
  if (node.tag !== tag) throw new DerError(`${what}: expected tag 0x${tag.toString(16)}, got 0x${node.tag.toString(16)}`);
  return node;
}

/** INTEGER content as an unsigned bigint (callers only read positive serials/nonces). */
export function integerValue(content: Uint8Array): bigint {
  return content.length === 0 ? 0n : BigInt(`0x${toHex(content)}`);
}
