/**
 * A BER (X.690 §8) reader for the CMS a PDF carries from elsewhere. RFC 5652 §1.2 lets SignedData
 * be BER; Acrobat, some national tools and `openssl cms -sign -stream` write indefinite lengths
 * (X.690 §8.1.3.6) and constructed strings (§8.7.3 OCTET STRING, §8.6.4 BIT STRING, §8.23.6
 * restricted character strings). der.ts stays the strict reader for everything we write and for
 * certificates (RFC 5280 §4.1: DER).
 *
 * Bounded: nesting deeper than MAX_BER_DEPTH and more than MAX_BER_ELEMENTS headers
 * read per parse are refused, so a hostile CMS can neither recurse without end nor make us walk
 * millions of empty elements. Elements are read on demand: a definite-length certificate or CRL
 * nobody asks about is skipped by its length, and the end of each indefinite-length element is
 * found once (remembered by offset), so a parse is linear in what it reads.
 */
import { concat, compareDer, DerError, TAG, type Der } from './der';

/** Levels of nesting a parse may enter. A CMS with a signature timestamp token nests under 30. */
export const MAX_BER_DEPTH = 64;
/**
 * Element headers a parse may read (about two per element made into a node). A signature reads a
 * few hundred: its certificates, attributes and content are listed, not walked inside. A node
 * costs some 300 bytes, so the cap also keeps a flood of empty elements under about 15 MB.
 */
export const MAX_BER_ELEMENTS = 100_000;
/**
 * Elements derViolation may walk: it allocates nothing per element, so it can go through what
 * signed attributes may legitimately embed (adbe-revocationInfoArchival carries whole CRLs).
 */
export const MAX_DER_CHECK_ELEMENTS = 4_000_000;

export interface BerLimits {
  maxDepth: number;
  maxElements: number;
}

const DEFAULT_LIMITS: BerLimits = { maxDepth: MAX_BER_DEPTH, maxElements: MAX_BER_ELEMENTS };

/** Universal tag numbers whose constructed form is a string in segments (X.690 §8.6.4, §8.7.3, §8.23.6). */
const STRING_TAGS = new Set([3, 4, 12, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30]);
const CONSTRUCTED = 0x20;

interface Header {
  tag: number;
  constructed: boolean;
  /** Identifier and length octets. */
  headerLength: number;
  /** Content octets, or -1 for the indefinite form. */
  length: number;
}

/** One parse of one buffer: the limits, what was counted, and the ends of indefinite elements found so far. */
class BerParse {
  elements = 0;
  readonly ends = new Map<number, number>();
  constructor(readonly buf: Uint8Array, readonly limits: BerLimits) {}

  /** X.690 §8.1.2 identifier (low tag numbers only) and §8.1.3 length octets at `at`, inside [.., limit). */
  header(at: number, limit: number): Header {
    if (++this.elements > this.limits.maxElements) throw new DerError(`more than ${this.limits.maxElements} BER elements`);
    const buf = this.buf;
    const tag = buf[at];
    const first = buf[at + 1];
    if (tag === undefined || first === undefined || at + 2 > limit) throw new DerError(`truncated BER at offset ${at}`);
    if ((tag & 0x1f) === 0x1f) throw new DerError(`multi-byte tags are not supported (offset ${at})`);
    const constructed = (tag & CONSTRUCTED) !== 0;
    if (first === 0x80) {
      // §8.1.3.2 a): a primitive encoding uses the definite form.
      if (!constructed) throw new DerError(`indefinite length on a primitive element (offset ${at})`);
      return { tag, constructed, headerLength: 2, length: -1 };
    }
    if (first < 0x80) return { tag, constructed, headerLength: 2, length: first };
    // §8.1.3.5 c): 0xFF is reserved.
    if (first === 0xff) throw new DerError(`reserved length octet 0xFF (offset ${at})`);
    const n = first & 0x7f;
    if (n > 4) throw new DerError(`length of ${n} octets is too large (offset ${at})`);
    let length = 0;
    for (let i = 0; i < n; i++) {
      const b = buf[at + 2 + i];
      if (b === undefined || at + 2 + i >= limit) throw new DerError(`truncated length at offset ${at}`);
      length = length * 256 + b;
    }
    return { tag, constructed, headerLength: 2 + n, length };
  }

  /** Where the element at `at` ends (after its end-of-contents octets when indefinite), within `limit`. */
  end(at: number, limit: number, depth: number): number {
    const h = this.header(at, limit);
    if (h.tag === 0x00) throw new DerError(`end-of-contents outside an indefinite length (offset ${at})`);
    if (h.length >= 0) {
      const end = at + h.headerLength + h.length;
      if (end > limit) throw new DerError(`BER element at offset ${at} runs past its container`);
      return end;
    }
    const known = this.ends.get(at);
    if (known !== undefined) {
      if (known > limit) throw new DerError(`BER element at offset ${at} runs past its container`);
      return known;
    }
    if (depth > this.limits.maxDepth) throw new DerError(`BER nested deeper than ${this.limits.maxDepth} levels (offset ${at})`);
    // §8.1.3.6: the contents are elements up to the end-of-contents octets 00 00 (§8.1.5).
    let p = at + h.headerLength;
    for (;;) {
      if (p + 2 > limit) throw new DerError(`indefinite length at offset ${at} has no end-of-contents`);
      if (this.buf[p] === 0x00) {
        if (this.buf[p + 1] !== 0x00) throw new DerError(`end-of-contents with a length at offset ${p}`);
        this.elements++;
        const end = p + 2;
        this.ends.set(at, end);
        return end;
      }
      p = this.end(p, limit, depth + 1);
    }
  }

  node(at: number, limit: number, depth: number): BerNode {
    if (depth > this.limits.maxDepth) throw new DerError(`BER nested deeper than ${this.limits.maxDepth} levels (offset ${at})`);
    const end = this.end(at, limit, depth);
    const h = this.header(at, end);
    const contentEnd = h.length < 0 ? end - 2 : end;
    const raw = this.buf.subarray(at, end);
    if (h.constructed && (h.tag & 0xc0) === 0 && STRING_TAGS.has(h.tag & 0x1f)) {
      return new BerNode(this, h.tag & ~CONSTRUCTED, raw, this.segments(h.tag & 0x1f, at + h.headerLength, contentEnd, depth + 1), false, h.length < 0, depth, -1, -1);
    }
    return new BerNode(this, h.tag, raw, this.buf.subarray(at + h.headerLength, contentEnd), h.constructed, h.length < 0, depth, at + h.headerLength, contentEnd);
  }

  /** The elements in [from, to), each read as a node one level down. */
  items(from: number, to: number, depth: number): BerNode[] {
    const out: BerNode[] = [];
    for (let p = from; p < to; ) {
      const n = this.node(p, to, depth);
      out.push(n);
      p += n.raw.length;
    }
    return out;
  }

  /**
   * A constructed string's value: its segments joined (§8.7.3.2: each segment is an OCTET STRING
   * encoding, primitive or constructed; §8.6.4: BIT STRING segments, only the last may leave bits unused).
   */
  segments(tagNumber: number, from: number, to: number, depth: number): Uint8Array {
    const segmentTag = tagNumber === 3 ? 3 : 4;
    const parts: Uint8Array[] = [];
    let unused = 0;
    for (const s of this.items(from, to, depth)) {
      if (s.tag !== segmentTag) throw new DerError(`a constructed string segment has tag 0x${s.tag.toString(16)}, not 0x${segmentTag.toString(16)}`);
      if (segmentTag === 3) {
        if (unused !== 0) throw new DerError('a BIT STRING segment with unused bits is not the last one');
        if (s.content.length === 0) throw new DerError('a BIT STRING segment has no initial octet');
        unused = s.content[0]!;
        parts.push(s.content.subarray(1));
      } else {
        parts.push(s.content);
      }
    }
    if (segmentTag === 3) return concat([Uint8Array.of(unused), ...parts]);
    // One segment (nested constructed ones included) is its own value: nothing to copy.
    return parts.length === 1 ? parts[0]! : concat(parts);
  }
}

/**
 * A BER element. `raw` is its encoding as stored (end-of-contents included); `content` its
 * value octets: for a constructed string, its segments joined and `tag` the primitive tag
 * (§8.7.3), so callers read it as the DER string it stands for.
 */
export class BerNode implements Der {
  constructor(
    private readonly parse: BerParse,
    readonly tag: number,
    readonly raw: Uint8Array,
    readonly content: Uint8Array,
    /** Constructed as read; false for a constructed string joined into one value. */
    readonly constructed: boolean,
    /** §8.1.3.6: the indefinite form. */
    readonly indefinite: boolean,
    private readonly depth: number,
    private readonly from: number,
    private readonly to: number,
  ) {}

  private cached: BerNode[] | null = null;

  /** The elements of a constructed encoding, in stored order; none for a primitive one. */
  items(): BerNode[] {
    if (!this.constructed) return [];
    this.cached ??= this.parse.items(this.from, this.to, this.depth + 1);
    return this.cached;
  }
}

/** The BER element at `offset`; bytes after it are left alone. */
export function readBer(buf: Uint8Array, offset = 0, limits: BerLimits = DEFAULT_LIMITS): BerNode {
  return new BerParse(buf, limits).node(offset, buf.length, 0);
}

/** Exactly one BER element spanning the whole buffer. */
export function readBerExact(buf: Uint8Array, limits: BerLimits = DEFAULT_LIMITS): BerNode {
  const node = readBer(buf, 0, limits);
  if (node.raw.length !== buf.length) throw new DerError(`${buf.length - node.raw.length} trailing bytes after BER`);
  return node;
}

/** The elements of `node`: a BER node's own, else the DER children read from its content. */
export function berItems(node: Der, derChildren: (n: Der) => Der[]): Der[] {
  return node instanceof BerNode ? node.items() : derChildren(node);
}

/**
 * Length of the BER element at the start of `buf` (a /Contents string is zero-padded after it),
 * or null when it does not read.
 */
export function berEncodingLength(buf: Uint8Array, limits: BerLimits = DEFAULT_LIMITS): number | null {
  try {
    return new BerParse(buf, limits).end(0, buf.length, 0);
  } catch (e) {
    if (e instanceof DerError) return null;
    throw e;
  }
}

/**
 * The SEQUENCE at the start of `buf` without the bytes after it (a PDF's /Contents is zero-padded
 * after its CMS; an indefinite length ends at its end-of-contents, §8.1.3.6), or `buf` as it is
 * when no SEQUENCE reads there: the CMS reader then says what is wrong with it.
 */
export function leadingSequence(buf: Uint8Array, limits: BerLimits = DEFAULT_LIMITS): Uint8Array {
  if (buf[0] !== TAG.SEQUENCE) return buf;
  return buf.subarray(0, berEncodingLength(buf, limits) ?? buf.length);
}

/**
 * Why the elements filling `buf` are not DER (X.690 §10, §11), or null when they are: derViolationAt's
 * reason with its offset.
 */
export function derViolation(buf: Uint8Array, limits?: BerLimits): string | null {
  const v = derViolationAt(buf, limits);
  return v && `${v.reason.replace('{at}', `at offset ${v.offset}`)}`;
}

/** UTCTime YYMMDDHHMMSSZ (X.690 §11.8), GeneralizedTime YYYYMMDDHHMMSS[.fff]Z without trailing zeros (§11.7). */
const UTC_TIME = /^\d{12}Z$/;
const GENERALIZED_TIME = /^\d{14}(\.\d*[1-9])?Z$/;

/**
 * The first place the elements filling `buf` are not DER (X.690 §10, §11), or null when they are.
 * Checked as stored, without re-encoding: lengths definite (§10.1) and in the fewest octets
 * (§10.1, §8.1.3.5), strings primitive (§10.2), BOOLEAN TRUE as 0xFF (§11.1), INTEGER and
 * ENUMERATED in the fewest octets (§8.3.2: no needless leading 0x00 or 0xFF), a BIT STRING's
 * unused-bit count 0 to 7 and 0 when empty (§8.6.2.2), times in their one DER form (§11.7, §11.8),
 * and the elements of every SET in ascending order of their encodings (§11.6 for SET OF; for SET,
 * §10.3's tag order is the same order when the tags are one octet and distinct). IMPLICIT-tagged
 * elements cannot be told apart here and are checked only as their tag allows. Bounded in depth
 * like the reader, in elements by MAX_DER_CHECK_ELEMENTS. `reason` has `{at}` where the offset goes.
 */
export function derViolationAt(buf: Uint8Array, limits: BerLimits = { maxDepth: MAX_BER_DEPTH, maxElements: MAX_DER_CHECK_ELEMENTS }): { offset: number; reason: string } | null {
  let elements = 0;
  const walk = (from: number, to: number, depth: number, sorted: boolean): { offset: number; reason: string } | null => {
    if (depth > limits.maxDepth) throw new DerError(`BER nested deeper than ${limits.maxDepth} levels (offset ${from})`);
    let previous: Uint8Array | null = null;
    for (let p = from; p < to; ) {
      if (++elements > limits.maxElements) throw new DerError(`more than ${limits.maxElements} BER elements`);
      const at = (reason: string) => ({ offset: p, reason });
      const tag = buf[p];
      const first = buf[p + 1];
      if (tag === undefined || first === undefined || p + 2 > to) return at('truncated {at}');
      if ((tag & 0x1f) === 0x1f) return at('a multi-byte tag {at}');
      if (first === 0x80) return at('an indefinite length {at} (X.690 §10.1)');
      let length = first;
      let header = 2;
      if (first > 0x80) {
        const n = first & 0x7f;
        if (n > 4 || p + 2 + n > to) return at('a length that does not read {at}');
        if (buf[p + 2] === 0) return at('a length with a leading zero octet {at} (X.690 §10.1)');
        length = 0;
        for (let i = 0; i < n; i++) length = length * 256 + buf[p + 2 + i]!;
        if (length < 0x80) return at('a long-form length under 128 {at} (X.690 §10.1)');
        header += n;
      }
      const end = p + header + length;
      if (end > to) return at('an element running past its container {at}');
      const constructed = (tag & CONSTRUCTED) !== 0;
      const c = p + header;
      if (constructed && (tag & 0xc0) === 0 && STRING_TAGS.has(tag & 0x1f)) return at('a constructed string {at} (X.690 §10.2)');
      if (tag === 0x01 && (length !== 1 || (buf[c] !== 0x00 && buf[c] !== 0xff))) return at('a BOOLEAN that is not 0x00 or 0xFF {at} (X.690 §11.1)');
      if (tag === 0x02 || tag === 0x0a) {
        const what = tag === 0x02 ? 'an INTEGER' : 'an ENUMERATED';
        if (length === 0) return at(`${what} without content octets {at} (X.690 §8.3.1)`);
        if (length > 1 && ((buf[c] === 0x00 && (buf[c + 1]! & 0x80) === 0) || (buf[c] === 0xff && (buf[c + 1]! & 0x80) !== 0))) {
          return at(`${what} with a needless leading 0x${buf[c] === 0 ? '00' : 'FF'} octet {at} (X.690 §8.3.2)`);
        }
      }
      if (tag === 0x03 && (length === 0 || buf[c]! > 7 || (length === 1 && buf[c] !== 0))) return at('a BIT STRING whose unused-bit count does not read {at} (X.690 §8.6.2.2)');
      if (tag === 0x17 || tag === 0x18) {
        const text = Buffer.from(buf.subarray(c, end)).toString('latin1');
        if (!(tag === 0x17 ? UTC_TIME : GENERALIZED_TIME).test(text)) return at(`a ${tag === 0x17 ? 'UTCTime' : 'GeneralizedTime'} not in its DER form {at} (X.690 §11.${tag === 0x17 ? 8 : 7})`);
      }
      if (constructed) {
        const inner = walk(c, end, depth + 1, tag === 0x31);
        if (inner) return inner;
      }
      if (sorted) {
        const encoding = buf.subarray(p, end);
        if (previous && compareDer(previous, encoding) > 0) return at('SET elements not in ascending order {at} (X.690 §11.6)');
        previous = encoding;
      }
      p = end;
    }
    return null;
  };
  return walk(0, buf.length, 0, false);
}
