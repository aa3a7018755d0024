import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BerNode, berEncodingLength, derViolation, leadingSequence, MAX_BER_DEPTH, MAX_BER_ELEMENTS, MAX_DER_CHECK_ELEMENTS, readBer, readBerExact } from '../../../src/der/ber';
import { bool, children, DerError, octets, oid, readDerExact, seq, setOf, tlv, uint, type Der } from '../../../src/der/der';

const h = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const items = (n: Der): BerNode[] => (n as BerNode).items();

/** `tag` holding `n` NULLs, its length in the fewest octets (built in place: a million arguments do not spread). */
function manyNulls(tag: number, n: number): Uint8Array {
  const length: number[] = [];
  for (let v = 2 * n; v > 0; v = Math.floor(v / 256)) length.unshift(v & 0xff);
  const header = 2 * n < 0x80 ? [tag, 2 * n] : [tag, 0x80 | length.length, ...length];
  const out = new Uint8Array(header.length + 2 * n);
  out.set(header);
  for (let i = 0; i < n; i++) out[header.length + 2 * i] = 0x05;
  return out;
}

describe('readBer: indefinite lengths (X.690 §8.1.3.6)', () => {
  it('reads nested indefinite and definite elements, raw as stored, content without the end-of-contents', () => {
    // SEQUENCE(indef) { INTEGER 5, SEQUENCE(indef) { BOOLEAN TRUE }, OCTET STRING 'ab' }
    const buf = h('3080 020105 3080 0101ff 0000 0401ab 0000');
    const root = readBerExact(buf);
    expect([root.tag, root.indefinite, root.constructed, root.raw.length]).toEqual([0x30, true, true, buf.length]);
    expect(hex(root.content)).toBe('020105' + '30800101ff0000' + '0401ab');
    const [int, inner, str] = items(root);
    expect([int!.tag, hex(int!.content), int!.indefinite]).toEqual([0x02, '05', false]);
    expect([inner!.tag, inner!.indefinite, hex(inner!.raw)]).toEqual([0x30, true, '30800101ff0000']);
    expect(items(inner!).map((i) => hex(i.raw))).toEqual(['0101ff']);
    expect(hex(str!.content)).toBe('ab');
    expect(items(int!)).toEqual([]);
  });

  it('reads DER exactly as readDer does (same raw and content for every node)', () => {
    const der = seq(uint(300n), setOf(octets(h('00ff')), oid('1.2.840.113549.1.7.1')), tlv(0xa0, seq(bool(true))));
    const walk = (b: Der, d: Der): void => {
      expect([b.tag, hex(b.raw), hex(b.content)]).toEqual([d.tag, hex(d.raw), hex(d.content)]);
      const bi = items(b);
      const di = (d.tag & 0x20) !== 0 ? children(d) : [];
      expect(bi).toHaveLength(di.length);
      bi.forEach((x, i) => walk(x, di[i]!));
    };
    walk(readBerExact(der), readDerExact(der));
  });

  it('finds the end of a zero-padded /Contents and leaves the padding', () => {
    expect(berEncodingLength(h('3080 0500 0000 000000000000'))).toBe(6);
    expect(berEncodingLength(h('3003 020101 0000'))).toBe(5);
    expect(berEncodingLength(h('3080 0500'))).toBeNull(); // no end-of-contents
    expect(readBer(h('3080 0500 0000 0000'), 0).raw.length).toBe(6);
    expect(() => readBerExact(h('3080 0500 0000 0000'))).toThrow('2 trailing bytes after BER');
  });

  it('leadingSequence: the CMS of a /Contents without its padding, or the bytes as they are when none reads', () => {
    expect(hex(leadingSequence(h('3080 0500 0000 000000')))).toBe('308005000000');
    expect(hex(leadingSequence(h('3003 020101 0000')))).toBe('3003020101');
    expect(hex(leadingSequence(h('3082 0003 020101 00')))).toBe('30820003020101'); // long form, as stored
    // Not a SEQUENCE, or one whose length does not read: left whole for the CMS reader to name.
    for (const s of ['0403 010203 00', '3080 0500', '3085 0000000001 00', '30ff 00', '30', '']) expect(hex(leadingSequence(h(s)))).toBe(hex(h(s)));
    expect(hex(leadingSequence(h('3005 0101')))).toBe('30050101'); // runs past the end
  });
});

describe('readBer: constructed strings (X.690 §8.7.3, §8.6.4, §8.23.6)', () => {
  it('joins an OCTET STRING in segments, nested constructed segments included, read as the primitive string', () => {
    // OCTET STRING(constructed, indef) { 'aabb', OCTET STRING(constructed, definite) { 'ccdd' }, 'ee' }
    const buf = h('2480 0402aabb 2404 0402ccdd 0401ee 0000');
    const s = readBerExact(buf);
    expect([s.tag, s.constructed, s.indefinite, hex(s.content), s.raw.length]).toEqual([0x04, false, true, 'aabbccddee', buf.length]);
    expect(s.items()).toEqual([]);
    // openssl -stream's eContent: [0] EXPLICIT { OCTET STRING(constructed) { chunks } }.
    const econtent = readBerExact(h('a080 2480 0403010203 0402 0405 0000 0000'));
    expect(items(econtent).map((i) => [i.tag, hex(i.content)])).toEqual([[0x04, '0102030405']]);
    // A UTF8String in OCTET STRING segments (§8.23.6).
    const utf8 = readBerExact(h('2c80 04026869 040121 0000'));
    expect([utf8.tag, Buffer.from(utf8.content).toString()]).toEqual([0x0c, 'hi!']);
  });

  it('joins BIT STRING segments, unused bits only in the last one', () => {
    const b = readBerExact(h('2380 030200aa 030204b0 0000'));
    expect([b.tag, hex(b.content)]).toEqual([0x03, '04aab0']);
    expect(() => readBerExact(h('2380 030204aa 030200b0 0000'))).toThrow('a BIT STRING segment with unused bits is not the last one');
    expect(() => readBerExact(h('2380 0300 0000'))).toThrow('a BIT STRING segment has no initial octet');
  });

  it('refuses a segment of another type', () => {
    expect(() => readBerExact(h('2480 0201ff 0000'))).toThrow('a constructed string segment has tag 0x2, not 0x4');
    expect(() => readBerExact(h('2380 0401ff 0000'))).toThrow('a constructed string segment has tag 0x4, not 0x3');
  });
});

describe('readBer: bounds (issue 15)', () => {
  it(`refuses nesting deeper than ${MAX_BER_DEPTH}, indefinite or definite, at once`, () => {
    const deep = (n: number) => h('3080'.repeat(n) + '0000'.repeat(n));
    expect(readBerExact(deep(MAX_BER_DEPTH)).raw.length).toBe(4 * MAX_BER_DEPTH);
    expect(() => readBerExact(deep(MAX_BER_DEPTH + 2))).toThrow(`BER nested deeper than ${MAX_BER_DEPTH} levels`);
    // 100,000 levels: the scan stops at the cap (no stack overflow, no time spent).
    const started = performance.now();
    expect(() => readBerExact(deep(100_000))).toThrow(DerError);
    expect(performance.now() - started).toBeLessThan(500);

    // Definite nesting is read on demand; walking it down stops at the cap too.
    let definite = h('0500');
    for (let i = 0; i < MAX_BER_DEPTH + 5; i++) definite = seq(definite);
    let node: BerNode = readBerExact(definite);
    expect(() => {
      for (;;) node = node.items()[0]!;
    }).toThrow(`BER nested deeper than ${MAX_BER_DEPTH} levels`);
    // Constructed strings nested in segments are bounded the same way.
    expect(() => readBerExact(h('2480'.repeat(200) + '0000'.repeat(200)))).toThrow(`BER nested deeper than ${MAX_BER_DEPTH} levels`);
  });

  it('refuses more elements than its budget: a flood of empty elements is not walked', () => {
    const flood = (n: number) => h('3080' + '0500'.repeat(n) + '0000');
    expect(readBerExact(flood(100), { maxDepth: 64, maxElements: 1000 }).items()).toHaveLength(100);
    expect(() => readBerExact(flood(1000), { maxDepth: 64, maxElements: 1000 })).toThrow('more than 1000 BER elements');
    // The default budget: a million NULLs (2 MB) refused in milliseconds, listed or scanned.
    const started = performance.now();
    expect(() => readBerExact(flood(1_000_000))).toThrow(`more than ${MAX_BER_ELEMENTS} BER elements`);
    expect(() => readBerExact(manyNulls(0x30, 100_000)).items()).toThrow(`more than ${MAX_BER_ELEMENTS} BER elements`);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('readBer: garbage', () => {
  it.each([
    ['3080 020101', 'indefinite length at offset 0 has no end-of-contents'],
    ['3080 0201', 'BER element at offset 2 runs past its container'],
    ['3080 3080 02', 'indefinite length at offset 2 has no end-of-contents'],
    ['02', 'truncated BER at offset 0'],
    ['3004 0000 0500', 'end-of-contents outside an indefinite length (offset 2)'],
    ['3080 0001 00 0000', 'end-of-contents with a length at offset 2'],
    ['04ff', 'reserved length octet 0xFF (offset 0)'],
    ['0480 0000', 'indefinite length on a primitive element (offset 0)'],
    ['3f01 00', 'multi-byte tags are not supported (offset 0)'],
    ['3003 020500', 'BER element at offset 2 runs past its container'],
    ['3085 0000000001 00', 'length of 5 octets is too large (offset 0)'],
    ['3082 01', 'truncated length at offset 0'],
    ['', 'truncated BER at offset 0'],
  ])('%s: %s', (input, message) => {
    expect(() => {
      const walk = (n: BerNode): void => n.items().forEach(walk);
      walk(readBerExact(h(input)));
    }).toThrow(message);
  });

  it('any bytes: a node tree or a DerError, never another error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          const walk = (n: BerNode): void => n.items().forEach(walk);
          walk(readBerExact(bytes));
        } catch (e) {
          if (!(e instanceof DerError)) throw e;
        }
        expect(berEncodingLength(bytes) === null || berEncodingLength(bytes)! <= bytes.length).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('derViolation: the stored bytes against X.690 §10-11', () => {
  const attr = (id: string, value: Uint8Array) => seq(oid(id), setOf(value));
  const a = attr('1.2.840.113549.1.9.3', oid('1.2.840.113549.1.7.1'));
  const b = attr('1.2.840.113549.1.9.4', octets(new Uint8Array(32).fill(7)));

  it('DER is DER: what der.ts writes, sorted SETs included', () => {
    expect(derViolation(setOf(b, a))).toBeNull();
    expect(derViolation(seq(setOf(octets(new Uint8Array(200)), bool(true)), bool(false)))).toBeNull();
  });

  it('names what is not', () => {
    expect(derViolation(tlv(0x31, b, a))).toMatch(/^SET elements not in ascending order at offset \d+ \(X\.690 §11\.6\)$/);
    // Nested: the values SET of an attribute.
    expect(derViolation(seq(tlv(0x31, octets(h('02')), octets(h('01')))))).toBe('SET elements not in ascending order at offset 7 (X.690 §11.6)');
    // A SEQUENCE keeps its order.
    expect(derViolation(seq(b, a))).toBeNull();
    expect(derViolation(h('3080 0500 0000'))).toBe('an indefinite length at offset 0 (X.690 §10.1)');
    expect(derViolation(h('308102 0500'))).toBe('a long-form length under 128 at offset 0 (X.690 §10.1)');
    expect(derViolation(h('30820080' + '00'.repeat(128)))).toBe('a length with a leading zero octet at offset 0 (X.690 §10.1)');
    expect(derViolation(h('3006 2404 0402abcd'))).toBe('a constructed string at offset 2 (X.690 §10.2)');
    expect(derViolation(h('3003 010101'))).toBe('a BOOLEAN that is not 0x00 or 0xFF at offset 2 (X.690 §11.1)');
    expect(derViolation(h('3003 0201'))).toBe('an element running past its container at offset 0');
  });

  it('names an INTEGER, ENUMERATED, BIT STRING or time not in its one DER form', () => {
    // X.690 §8.3.2: no needless leading octet; 0x00 before a high bit and 0xFF before a low one are needed.
    expect(derViolation(h('3004 0202 0080'))).toBeNull();
    expect(derViolation(h('3004 0202 ff7f'))).toBeNull();
    expect(derViolation(h('3004 0202 007f'))).toBe('an INTEGER with a needless leading 0x00 octet at offset 2 (X.690 §8.3.2)');
    expect(derViolation(h('3004 0202 ff80'))).toBe('an INTEGER with a needless leading 0xFF octet at offset 2 (X.690 §8.3.2)');
    expect(derViolation(h('3002 0200'))).toBe('an INTEGER without content octets at offset 2 (X.690 §8.3.1)');
    expect(derViolation(h('3004 0a02 0001'))).toBe('an ENUMERATED with a needless leading 0x00 octet at offset 2 (X.690 §8.3.2)');
    expect(derViolation(h('3003 0301 01'))).toBe('a BIT STRING whose unused-bit count does not read at offset 2 (X.690 §8.6.2.2)');
    expect(derViolation(h('3004 0302 08ff'))).toBe('a BIT STRING whose unused-bit count does not read at offset 2 (X.690 §8.6.2.2)');
    expect(derViolation(tlv(0x17, new TextEncoder().encode('260101000000Z')))).toBeNull();
    expect(derViolation(tlv(0x17, new TextEncoder().encode('2601010000Z')))).toBe('a UTCTime not in its DER form at offset 0 (X.690 §11.8)');
    expect(derViolation(tlv(0x18, new TextEncoder().encode('20260101000000.5Z')))).toBeNull();
    expect(derViolation(tlv(0x18, new TextEncoder().encode('20260101000000.50Z')))).toBe('a GeneralizedTime not in its DER form at offset 0 (X.690 §11.7)');
    expect(derViolation(tlv(0x18, new TextEncoder().encode('20260101000000+0100')))).toBe('a GeneralizedTime not in its DER form at offset 0 (X.690 §11.7)');
  });

  it('is bounded like the reader', () => {
    let deep = h('0500');
    for (let i = 0; i < 100; i++) deep = seq(deep);
    expect(() => derViolation(deep)).toThrow(`BER nested deeper than ${MAX_BER_DEPTH} levels`);
    expect(() => derViolation(tlv(0x30, ...Array.from({ length: 2000 }, () => h('0500'))), { maxDepth: 64, maxElements: 1000 })).toThrow('more than 1000 BER elements');
    // A SET of a million elements (a large CRL's worth) is walked; over the cap it is refused.
    expect(derViolation(manyNulls(0x31, 1_000_000))).toBeNull();
    expect(() => derViolation(manyNulls(0x31, MAX_DER_CHECK_ELEMENTS))).toThrow(`more than ${MAX_DER_CHECK_ELEMENTS} BER elements`);
  });
});
