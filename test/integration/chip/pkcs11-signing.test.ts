/**
 * The PKCS#11 bridge against a real SoftHSM2 token: key listing, signatures checked by other
 * implementations (node:crypto, @noble/curves), and concurrent use of one session.
 */
import { constants, createHash, createPublicKey, publicDecrypt, randomBytes, verify, X509Certificate } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChipError } from '../../../src/domain/errors';
import { createPkcs11Chip } from '../../../src/chip/pkcs11';
import type { Chip, ChipKey } from '../../../src/chip/types';
import { createSoftHsmToken, type SoftHsmToken } from '../../helpers/softhsm';

// secp256k1 group order n (SEC 2 §2.4.1); s > n/2 is a "high s" that EIP-2 forbids on chain.
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let token: SoftHsmToken;
let chip: Chip;
let keys: ChipKey[];

function key(id: string): ChipKey {
  const found = keys.find((k) => k.id === id);
  if (!found) throw new Error(`no key ${id}`);
  return found;
}

function spkiOf(certificate: Uint8Array): Uint8Array {
  return new Uint8Array(new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'der' }));
}

beforeAll(async () => {
  token = await createSoftHsmToken();
  // SoftHSM2 reads SOFTHSM2_CONF at C_Initialize, which runs in this process.
  process.env.SOFTHSM2_CONF = token.conf;
  chip = await createPkcs11Chip({ modulePath: token.modulePath, tokenLabel: token.label, pin: () => token.pin });
  keys = await chip.listKeys();
});

afterAll(async () => {
  await chip?.close();
  await token?.cleanup();
});

describe('listKeys', () => {
  it('lists the three signing keys with their algorithms and labels, ordered by CKA_ID', () => {
    expect(chip.kind).toBe('pkcs11');
    expect(keys.map((k) => [k.id, k.label, k.algorithm])).toEqual([
      ['01', 'rsa-signer', 'rsa'],
      ['02', 'p256-signer', 'p256'],
      ['03', 'secp256k1-wallet', 'secp256k1'],
    ]);
  });

  it('matches RSA and P-256 keys to their certificates and the CA chain, issuer first', () => {
    for (const id of ['01', '02']) {
      const expected = token.keys.find((k) => k.id === id)?.certificate;
      expect(expected).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(key(id).certificate ?? []).equals(Buffer.from(expected ?? []))).toBe(true);
      expect(key(id).chain.map((c) => Buffer.from(c).toString('hex'))).toEqual([
        Buffer.from(token.ca.intermediate).toString('hex'),
        Buffer.from(token.ca.root).toString('hex'),
      ]);
      // publicKey is the SubjectPublicKeyInfo, the same one the certificate carries.
      expect(Buffer.from(key(id).publicKey).toString('hex')).toBe(Buffer.from(spkiOf(expected ?? new Uint8Array())).toString('hex'));
    }
    expect(new X509Certificate(key('02').chain[1] ?? new Uint8Array()).subject).toBe('O=localsign tests\nCN=Test Root CA');
  });

  it('gives secp256k1 as the 65-byte point of CKA_EC_POINT, without certificate or chain', async () => {
    const k = key('03');
    expect(k.certificate).toBeNull();
    expect(k.chain).toEqual([]);
    expect(k.publicKey.length).toBe(65);
    expect(k.publicKey[0]).toBe(0x04);
    // pkcs11-tool prints the same point (DER OCTET STRING 0441 + point) for the public key
    // object with ID 03 (it lists every public key; --id does not filter --list-objects).
    const { stdout } = await token.pkcs11Tool(['--list-objects', '--type', 'pubkey']);
    const block = stdout.split('Public Key Object').find((b) => /\n\s*ID:\s*03\s*\n/u.test(b)) ?? '';
    expect(/EC_PARAMS:\s*([0-9a-f]+)/iu.exec(block)?.[1]).toBe('06052b8104000a');
    expect(/EC_POINT:\s*([0-9a-f]+)/iu.exec(block)?.[1]).toBe(`0441${Buffer.from(k.publicKey).toString('hex')}`);
  });
});

describe('signDigest', () => {
  it('RSA: RSASSA-PKCS1-v1_5 over DigestInfo(sha256) that node:crypto verifies with the certificate key', async () => {
    const data = Buffer.from('localsign PKCS#11 RSA test vector');
    const digest = createHash('sha256').update(data).digest();
    const signature = await chip.signDigest('01', digest);
    expect(signature.length).toBe(256);
    const cert = new X509Certificate(key('01').certificate ?? new Uint8Array());
    expect(verify('sha256', data, cert.publicKey, signature)).toBe(true);
    const recovered = publicDecrypt({ key: cert.publicKey, padding: constants.RSA_PKCS1_PADDING }, signature);
    expect(recovered.toString('hex')).toBe(`3031300d060960864801650304020105000420${digest.toString('hex')}`);
  });

  it('P-256: raw r‖s that @noble/curves and node:crypto (IEEE P1363) verify', async () => {
    const data = Buffer.from('localsign PKCS#11 P-256 test vector');
    const digest = createHash('sha256').update(data).digest();
    const signature = await chip.signDigest('02', digest);
    expect(signature.length).toBe(64);
    const point = key('02').publicKey.subarray(-65);
    expect(p256.verify(signature, digest, point, { prehash: false, lowS: false })).toBe(true);
    const cert = new X509Certificate(key('02').certificate ?? new Uint8Array());
    expect(verify('sha256', data, { key: cert.publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    const other = Buffer.from(digest);
    other[0] = (other[0] ?? 0) ^ 1;
    expect(p256.verify(signature, other, point, { prehash: false, lowS: false })).toBe(false);
  });

  it('secp256k1: 200 signatures over random digests verify, and about half have a high s', async () => {
    const point = key('03').publicKey;
    let high = 0;
    for (let i = 0; i < 200; i += 1) {
      const digest = randomBytes(32);
      const signature = await chip.signDigest('03', digest);
      expect(signature.length).toBe(64);
      expect(secp256k1.verify(signature, digest, point, { prehash: false, lowS: false })).toBe(true);
      const s = BigInt(`0x${Buffer.from(signature.subarray(32)).toString('hex')}`);
      if (s > SECP256K1_N / 2n) high += 1;
    }
    // The chip does NOT normalise s (Chip contract): the EVM layer must apply EIP-2 low-s.
    // Binomial(200, 1/2): 100 ± 7; outside 60..140 means something normalises or biases s.
    expect(high).toBeGreaterThan(60);
    expect(high).toBeLessThan(140);
  });

  it('serialises 50 concurrent calls on one session: all succeed and verify', async () => {
    const digests = Array.from({ length: 50 }, () => randomBytes(32));
    const ids = ['01', '02', '03'];
    const signatures = await Promise.all(digests.map((d, i) => chip.signDigest(ids[i % 3] ?? '03', d)));
    signatures.forEach((signature, i) => {
      const digest = digests[i] ?? Buffer.alloc(32);
      const id = ids[i % 3];
      if (id === '01') {
        const rsaKey = createPublicKey({ key: Buffer.from(key('01').publicKey), format: 'der', type: 'spki' });
        const recovered = publicDecrypt({ key: rsaKey, padding: constants.RSA_PKCS1_PADDING }, signature);
        expect(recovered.toString('hex')).toBe(`3031300d060960864801650304020105000420${digest.toString('hex')}`);
      } else if (id === '02') {
        expect(p256.verify(signature, digest, key('02').publicKey.subarray(-65), { prehash: false, lowS: false })).toBe(true);
      } else {
        expect(secp256k1.verify(signature, digest, key('03').publicKey, { prehash: false, lowS: false })).toBe(true);
      }
    });
  });

  it('rejects an unknown key id and a digest that is not 32 bytes with a ChipError', async () => {
    await expect(chip.signDigest('7f', new Uint8Array(32))).rejects.toThrow(
      new ChipError("no signing key with id 7f on token 'localsign-test'"),
    );
    await expect(chip.signDigest('03', new Uint8Array(31))).rejects.toThrow(
      new ChipError('digest must be 32 bytes (SHA-256 or keccak256), got 31'),
    );
    await expect(chip.signDigest('7f', new Uint8Array(32))).rejects.toBeInstanceOf(ChipError);
  });
});
