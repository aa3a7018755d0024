import { describe, expect, it } from 'vitest';
import { MultiTokenChip } from '../../../src/chip/pkcs11/multi-token-chip';
import type { Chip, ChipKey } from '../../../src/chip/types';

/** A token's chip that records what it was asked to sign. */
function fakeToken(ids: string[], present = true) {
  const signed: string[] = [];
  const chip: Chip = {
    kind: 'pkcs11',
    present,
    listKeys: async () => ids.map((id): ChipKey => ({ id, label: `key ${id}`, algorithm: 'secp256k1', publicKey: new Uint8Array(65), certificate: null, chain: [] })),
    signDigest: async (keyId) => {
      signed.push(keyId);
      return new Uint8Array(64);
    },
    close: async () => undefined,
  };
  return { chip, signed };
}

describe('MultiTokenChip (issue 16: several cards)', () => {
  it('lists every card\'s keys under `label/id`, named with the card', async () => {
    const a = fakeToken(['01', '02']);
    const b = fakeToken(['01']);
    const chip = new MultiTokenChip([{ label: 'card/a', chip: a.chip }, { label: 'card-b', chip: b.chip }]);
    expect((await chip.listKeys()).map((k) => [k.id, k.label])).toEqual([
      ['card/a/01', 'card/a: key 01'],
      ['card/a/02', 'card/a: key 02'],
      ['card-b/01', 'card-b: key 01'],
    ]);
  });

  it('routes a signature to its card by the label (one with a slash in it too), and refuses an unknown one', async () => {
    const a = fakeToken(['01']);
    const b = fakeToken(['01']);
    const chip = new MultiTokenChip([{ label: 'card/a', chip: a.chip }, { label: 'card-b', chip: b.chip }]);
    await chip.signDigest('card/a/01', new Uint8Array(32));
    await chip.signDigest('card-b/01', new Uint8Array(32));
    expect([a.signed, b.signed]).toEqual([['01'], ['01']]);
    await expect(chip.signDigest('card-c/01', new Uint8Array(32))).rejects.toThrow("key card-c/01 names no configured token ('card/a', 'card-b')");
  });

  it('is present only while every card is', () => {
    expect(new MultiTokenChip([{ label: 'a', chip: fakeToken([]).chip }, { label: 'b', chip: fakeToken([], false).chip }]).present).toBe(false);
    expect(new MultiTokenChip([{ label: 'a', chip: fakeToken([]).chip }]).present).toBe(true);
  });
});
