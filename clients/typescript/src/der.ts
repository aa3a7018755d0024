/**
 * The little DER (X.690) the client reads: a certificate's issuer, serial, key identifier and key,
 * and a CMS's SignerInfo. Definite lengths only (X.690 §10.1): the service writes DER, so an
 * indefinite length is not its answer. Elements are offsets into the one buffer, never copies.
 */

export class DerError extends Error {
  override readonly name = 'DerError';
}

export interface Tlv {
  tag: number;
  /** Offset of the tag byte. */
  start: number;
  /** Offset of the first content byte. */
  body: number;
  /** Offset just past the element. */
  end: number;
}

export const TAG = { INTEGER: 0x02, BIT_STRING: 0x03, OCTET_STRING: 0x04, OID: 0x06, SEQUENCE: 0x30, SET: 0x31 } as const;

/** The element at `at`, which must end by `limit`. */
export function readTlv(buf: Uint8Array, at: number, limit = buf.length): Tlv {
  if (at + 2 > limit) throw new DerError(`DER element cut short at offset ${at}`);
  const tag = buf[at]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`multi-byte DER tag at offset ${at}`);
  let length = buf[at + 1]!;
  let body = at + 2;
  if (length === 0x80) throw new DerError(`indefinite length at offset ${at}: BER, not DER`);
  if (length > 0x80) {
    const count = length & 0x7f;
    if (count > 4 || body + count > limit) throw new DerError(`DER length of ${count} bytes at offset ${at}`);
    length = 0;
    for (let i = 0; i < count; i += 1) length = length * 256 + buf[body + i]!;
    body += count;
  }
  const end = body + length;
  if (end > limit) throw new DerError(`DER element at offset ${at} runs past its container`);
  return { tag, start: at, body, end };
}

/** The elements inside a constructed element. */
export function children(buf: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.body; at < parent.end; ) {
    const child = readTlv(buf, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

/** The one element `parent` must hold at `index`, with `tag`. */
export function child(buf: Uint8Array, parent: Tlv, index: number, tag: number, what: string): Tlv {
  const c = children(buf, parent)[index];
  if (!c || c.tag !== tag) throw new DerError(`${what} is missing or not tag 0x${tag.toString(16)}`);
  return c;
}

export const contentOf = (buf: Uint8Array, t: Tlv): Uint8Array => buf.subarray(t.body, t.end);
export const rawOf = (buf: Uint8Array, t: Tlv): Uint8Array => buf.subarray(t.start, t.end);

/** An OBJECT IDENTIFIER's contents in dotted form (X.690 §8.19). */
export function oidOf(content: Uint8Array): string {
  if (content.length === 0) throw new DerError('empty OBJECT IDENTIFIER');
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join('.');
}

/** The OID an AlgorithmIdentifier (or an Attribute, an Extension) starts with. */
export function leadingOid(buf: Uint8Array, seq: Tlv, what: string): string {
  return oidOf(contentOf(buf, child(buf, seq, 0, TAG.OID, what)));
}
