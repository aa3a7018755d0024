/**
 * Issue 16 "Matching keys to certificates": some cards and middleware write a certificate under
 * another CKA_ID than its key, or none; some hold no public key objects. Keys are matched to their
 * certificates by CKA_ID when it matches and by the public key otherwise, listed (with a login, or
 * without one for a chip whose PIN comes with each signature) and signed with. SoftHSM2 tokens laid
 * out each way (test/helpers/softhsm.ts), one configuration for this file's process.
 */
import { constants, createHash, publicDecrypt, X509Certificate } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkcs11Chip } from '../../../src/chip/pkcs11';
import type { Chip, ChipKey } from '../../../src/chip/types';
import { sha256DigestInfo } from '../../../src/der/keys';
import { createSoftHsmTokens, type SoftHsmTokenSet } from '../../helpers/softhsm';

let set: SoftHsmTokenSet;
const chips: Chip[] = [];

beforeAll(async () => {
  set = await createSoftHsmTokens([
    { label: 'ids-differ', idLayout: 'certificate-differs' },
    { label: 'no-cert-ids', idLayout: 'no-ids' },
    { label: 'differ-no-pub', idLayout: 'certificate-differs', withoutPublicKeys: true },
  ]);
  // SoftHSM2 reads SOFTHSM2_CONF at C_Initialize, which runs in this process.
  process.env.SOFTHSM2_CONF = set.conf;
}, 120_000);
afterAll(async () => {
  for (const chip of chips) await chip.close();
  await set?.cleanup();
});

async function open(label: string, pin: 'stored' | 'per-request'): Promise<Chip> {
  const token = set.token(label);
  const chip = await createPkcs11Chip({ modulePath: set.modulePath, tokenLabel: label, pin: pin === 'stored' ? () => token.pin : 'per-request' });
  chips.push(chip);
  return chip;
}

const certificateOf = (label: string, algorithm: string) => set.token(label).keys.find((k) => k.algorithm === algorithm)!.certificate!;
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));

/** The signature verifies under the certificate's key (RSASSA-PKCS1-v1_5 over DigestInfo, or ECDSA r‖s over the digest). */
function verifies(certificate: Uint8Array, key: ChipKey, digest: Uint8Array, signature: Uint8Array): boolean {
  const publicKey = new X509Certificate(certificate).publicKey;
  if (key.algorithm === 'rsa') return publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature).equals(Buffer.from(sha256DigestInfo(digest)));
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return p256.verify(signature, digest, new Uint8Array(spki.subarray(-65)), { prehash: false, lowS: false });
}

describe.each(['ids-differ', 'no-cert-ids'])('token %s (certificates not under their key\'s CKA_ID)', (label) => {
  it('each key is listed under its own CKA_ID with its certificate, found by the public key, and signs', async () => {
    const chip = await open(label, 'stored');
    const keys = await chip.listKeys();
    expect(keys.map((k) => [k.id, k.algorithm])).toEqual([['01', 'rsa'], ['02', 'p256'], ['03', 'secp256k1']]);
    for (const algorithm of ['rsa', 'p256']) {
      const key = keys.find((k) => k.algorithm === algorithm)!;
      expect(same(key.certificate, certificateOf(label, algorithm)), `${algorithm} certificate`).toBe(true);
      expect(key.chain).toHaveLength(2);
      const digest = createHash('sha256').update(`${label} ${algorithm}`).digest();
      expect(verifies(key.certificate!, key, digest, await chip.signDigest(key.id, digest))).toBe(true);
    }
    await chip.close();
  });
});

describe('token differ-no-pub (certificates under other CKA_IDs, no public key objects)', () => {
  it('logged in: the RSA key carries its modulus and finds its certificate; the P-256 key, with nothing to match it by, is not listed', async () => {
    const chip = await open('differ-no-pub', 'stored');
    const keys = await chip.listKeys();
    expect(keys.map((k) => [k.id, k.algorithm])).toEqual([['01', 'rsa'], ['03', 'secp256k1']]);
    expect(same(keys[0]!.certificate, certificateOf('differ-no-pub', 'rsa'))).toBe(true);
    // Its logout: the login state is the process's for the token (v2.40 §5.6), and the next chip must not inherit it.
    await chip.close();
  });

  it('not logged in (PIN per request): listed from the certificates, then signed by the key with the same public key', async () => {
    const chip = await open('differ-no-pub', 'per-request');
    const keys = await chip.listKeys();
    const rsa = keys.find((k) => k.algorithm === 'rsa')!;
    const p256 = keys.find((k) => k.algorithm === 'p256')!;
    // Listed under the certificates' own CKA_IDs: nothing else is visible without a login.
    expect([rsa.id, p256.id]).toEqual(['a1', 'a2']);
    expect(rsa.pinPerSignature).toBeUndefined();
    const token = set.token('differ-no-pub');
    const digest = createHash('sha256').update('per request').digest();
    const signature = await chip.signDigest(rsa.id, digest, { pin: new Uint8Array(Buffer.from(token.pin)) });
    expect(verifies(rsa.certificate!, rsa, digest, signature)).toBe(true);
  });
});
