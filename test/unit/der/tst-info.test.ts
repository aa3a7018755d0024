/** readTstInfo (RFC 3161 §2.4.2) on TSTInfos built here: every optional field before the nonce, and what it refuses. */
import { describe, expect, it } from 'vitest';
import { bool, ctx, DerError, octets, oid, seq, tlv, uint, TAG } from '../../../src/der/der';
import { OID } from '../../../src/der/oids';
import { readTstInfo } from '../../../src/der/tst-info';

const IMPRINT = new Uint8Array(32).fill(0xab);
const time = (tag: number, text: string): Uint8Array => tlv(tag, new TextEncoder().encode(text));

function tstInfo(o: { genTime?: Uint8Array; accuracy?: boolean; ordering?: boolean; nonce?: bigint; tsa?: boolean } = {}): Uint8Array {
  return seq(
    uint(1),
    oid('1.3.6.1.4.1.57264.99.1'),
    seq(seq(oid(OID.sha256)), octets(IMPRINT)),
    uint(0x1234),
    o.genTime ?? time(TAG.GENERALIZED_TIME, '20260102030405.25Z'),
    ...(o.accuracy ? [seq(uint(1))] : []),
    ...(o.ordering ? [bool(false)] : []),
    ...(o.nonce !== undefined ? [uint(o.nonce)] : []),
    ...(o.tsa ? [ctx(0, ctx(4, seq()))] : []),
  );
}

describe('readTstInfo', () => {
  it('reads the imprint, genTime and the nonce behind accuracy and ordering', () => {
    const t = readTstInfo(tstInfo({ accuracy: true, ordering: true, nonce: 0x123456789abcdef0n, tsa: true }));
    expect(t.hashAlgorithm).toBe(OID.sha256);
    expect(t.hashedMessage).toEqual(IMPRINT);
    expect(t.genTime.toISOString()).toBe('2026-01-02T03:04:05.250Z');
    expect(t.nonce).toBe(0x123456789abcdef0n);
    expect(readTstInfo(tstInfo({ nonce: 7n })).nonce).toBe(7n);
    expect(readTstInfo(tstInfo({ accuracy: true, tsa: true })).nonce).toBeNull();
  });

  it('refuses a genTime that is not a GeneralizedTime in UTC, a missing imprint and trailing bytes', () => {
    expect(() => readTstInfo(tstInfo({ genTime: time(TAG.UTC_TIME, '260102030405Z') }))).toThrow('genTime: expected tag 0x18, got 0x17');
    expect(() => readTstInfo(tstInfo({ genTime: time(TAG.GENERALIZED_TIME, '20260102030405+0100') }))).toThrow(DerError);
    expect(() => readTstInfo(seq(uint(1), oid('1.2.3')))).toThrow('messageImprint is missing');
    expect(() => readTstInfo(new Uint8Array([...tstInfo(), 0]))).toThrow('1 trailing bytes after DER');
  });
});
