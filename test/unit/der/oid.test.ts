import { describe, expect, it } from 'vitest';
import { parseSignedData } from '../../../src/der/cms-fields';
import { decodeOid, DerError, MAX_OID_CONTENT, oid, readDerExact } from '../../../src/der/der';
import { OID } from '../../../src/der/oids';
import { hugeOidContentInfo } from '../../helpers/hostile-pdfs';

const content = (dotted: string) => readDerExact(oid(dotted)).content;
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

describe('decodeOid', () => {
  it('decodes published encodings (X.690 §8.19.5 example, RFC 5652, X.667 UUID arc)', () => {
    expect(decodeOid(fromHex('883703'))).toBe('2.999.3'); // X.690 §8.19.5
    expect(decodeOid(fromHex('2a864886f70d010702'))).toBe('1.2.840.113549.1.7.2'); // RFC 5652 §5 signedData
    expect(decodeOid(fromHex('551d13'))).toBe('2.5.29.19');
    expect(decodeOid(fromHex('00'))).toBe('0.0');
    expect(decodeOid(fromHex('27'))).toBe('0.39');
    expect(decodeOid(fromHex('28'))).toBe('1.0');
    expect(decodeOid(fromHex('4f'))).toBe('1.39');
    expect(decodeOid(fromHex('50'))).toBe('2.0');
    // X.667 §C: the UUID f81d4fae-7dec-11d0-a765-00a0c91e6bf6 as an arc under 2.25 (128 bits: a BigInt arc).
    const uuid = '2.25.329800735698586629295641978511506172918';
    expect(decodeOid(content(uuid))).toBe(uuid);
  });

  it('round-trips every OID the service compares, and arcs on both sides of 2^53', () => {
    for (const dotted of Object.values(OID)) expect(decodeOid(content(dotted))).toBe(dotted);
    for (const arc of ['9007199254740991', '9007199254740992', '18446744073709551615', '1180591620717411303424']) {
      expect(decodeOid(content(`1.3.${arc}.7`))).toBe(`1.3.${arc}.7`);
    }
    // A first subidentifier past 2^53 (arc 2.x with x huge).
    expect(decodeOid(content('2.18446744073709551615'))).toBe('2.18446744073709551615');
  });

  it('refuses empty, truncated and over-long content', () => {
    expect(() => decodeOid(new Uint8Array(0))).toThrow(DerError);
    expect(() => decodeOid(fromHex('2a86'))).toThrow('ends inside a subidentifier');
    const longest = new Uint8Array(MAX_OID_CONTENT).fill(0x01);
    expect(decodeOid(longest).split('.')).toHaveLength(MAX_OID_CONTENT + 1);
    expect(() => decodeOid(new Uint8Array(MAX_OID_CONTENT + 1).fill(0x01))).toThrow(
      `an OBJECT IDENTIFIER of ${MAX_OID_CONTENT + 1} content octets is over the ${MAX_OID_CONTENT} read`,
    );
  });

  it('refuses a 400 KB OID in milliseconds, alone and as a CMS contentType (66 s before issue 15)', () => {
    const huge = new Uint8Array(400 * 1024).fill(0x81);
    huge[huge.length - 1] = 0x01;
    let t0 = performance.now();
    expect(() => decodeOid(huge)).toThrow('over the 64 read');
    expect(performance.now() - t0).toBeLessThan(100);
    const cms = new Uint8Array(hugeOidContentInfo(400));
    t0 = performance.now();
    expect(() => parseSignedData(cms)).toThrow(DerError);
    expect(performance.now() - t0).toBeLessThan(100);
  });
});
