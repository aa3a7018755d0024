import { describe, expect, it } from 'vitest';
import { memoByDer } from '../../../src/der/memo-by-der';

describe('memoByDer', () => {
  it('computes once per content, whatever buffer holds it', () => {
    let calls = 0;
    const length = memoByDer((der) => (calls++, der.length));
    const a = new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x05]);
    const inLarger = new Uint8Array(16);
    inLarger.set(a, 7);
    expect(length(a)).toBe(5);
    expect(length(inLarger.subarray(7, 12))).toBe(5);
    expect(calls).toBe(1);
    expect(length(new Uint8Array([0x05, 0x00]))).toBe(2);
    expect(calls).toBe(2);
  });

  it('keeps at most its bound, the oldest let go first, and never a failure', () => {
    let calls = 0;
    const first = memoByDer((der) => {
      calls++;
      if (der[0] === 0xff) throw new Error('not DER');
      return der[0]!;
    }, 2);
    first(new Uint8Array([1]));
    first(new Uint8Array([2]));
    first(new Uint8Array([3]));
    expect(calls).toBe(3);
    first(new Uint8Array([3]));
    first(new Uint8Array([2]));
    expect(calls).toBe(3);
    first(new Uint8Array([1]));
    expect(calls).toBe(4);
    expect(() => first(new Uint8Array([0xff]))).toThrow('not DER');
    expect(() => first(new Uint8Array([0xff]))).toThrow('not DER');
    expect(calls).toBe(6);
  });
});
