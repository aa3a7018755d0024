import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ecdsaDerToRaw, nodeCryptoBackend, webCryptoBackend, type CryptoBackend } from '../src/crypto-backend';
import { hexOf } from '../src/hex';
import { deriveKeys, expectedProof, newNonce, sameProof, signatureHeader } from '../src/proof';

/**
 * The proof and request-signature vector computed with openssl, not with this code (the service's
 * test/unit/store/wrapper-signatures.test.ts holds the same one and says how):
 *   H=$(printf %s "$SECRET" | openssl dgst -sha256 -r | cut -d' ' -f1)
 *   PK=$(printf %s localsign-service-proof-key-v1 | openssl dgst -sha256 -mac HMAC -macopt hexkey:$H -r | cut -d' ' -f1)
 *   printf 'localsign-service-proof-v1\n%s\n%s' "$KEY" "$CHALLENGE" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$PK
 *   RK=$(printf %s localsign-request-key-v1 | openssl dgst -sha256 -mac HMAC -macopt hexkey:$H -r | cut -d' ' -f1)
 *   printf 'localsign-request-v1\nPOST\n/v1/pades/sign?credential_key=abc\n1764331200\n%s\n%s' "$CHALLENGE" "$KEY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$RK
 */
const VECTOR = {
  secret: 'wsec_vectorSecretForProofTests0000000000000000',
  key: 'wrp_vectorKey000000000000',
  challenge: '00112233445566778899aabbccddeeff',
  secretSha256: '3d61382ccf835ccb365be3103e57bcced70040c1b7509cc70ecaec8706aef3cd',
  proof: '6713d6b89e2a83727da78d1b5380710122f9dbde8fa88261dd6792063cc7cece',
  request: { method: 'POST', target: '/v1/pades/sign?credential_key=abc', time: 1764331200 },
  signature: 'f694e74d267df3f0889c60fd01bb9b747ebe0955b338c70d2b5191740cd5d496',
};

const BACKENDS: [string, () => CryptoBackend][] = [
  ['node:crypto', () => nodeCryptoBackend()!],
  ['WebCrypto', () => webCryptoBackend()],
];

describe.each(BACKENDS)('with %s', (name, backend) => {
  const crypto = backend();

  it('is the backend it says', () => {
    expect(crypto.name).toBe(name === 'WebCrypto' ? 'webcrypto' : 'node:crypto');
  });

  it('reproduces the openssl vector: the secret hash, the proof, the request signature', async () => {
    expect(hexOf(await crypto.sha256([new TextEncoder().encode(VECTOR.secret)]))).toBe(VECTOR.secretSha256);
    const keys = await deriveKeys(VECTOR.secret, crypto);
    expect(await expectedProof(keys, VECTOR.key, VECTOR.challenge, crypto)).toBe(VECTOR.proof);
    const header = await signatureHeader(keys, { ...VECTOR.request, nonce: VECTOR.challenge, key: VECTOR.key }, crypto);
    expect(header).toBe(`t=${VECTOR.request.time},n=${VECTOR.challenge},s=${VECTOR.signature}`);
  });

  it('hashes parts as if joined; nonces are 32 fresh lowercase hex digits', async () => {
    const whole = new Uint8Array(1000).map((_, i) => i % 256);
    const joined = hexOf(await crypto.sha256([whole]));
    expect(hexOf(await crypto.sha256([whole.subarray(0, 3), whole.subarray(3, 700), whole.subarray(700)]))).toBe(joined);
    const a = newNonce(crypto);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(newNonce(crypto)).not.toBe(a);
  });

  it.each(['rsa', 'p256'] as const)('verifies a %s signature made by node:crypto, and refuses it over other data or with another key', async (type) => {
    const make = () => (type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' }));
    const { privateKey, publicKey } = make();
    const other = make().publicKey;
    const spki = (k: typeof publicKey) => new Uint8Array(k.export({ format: 'der', type: 'spki' }));
    const algorithm = type === 'rsa' ? 'rsa-pkcs1-sha256' : 'ecdsa-p256-sha256';
    const data = new TextEncoder().encode('the signed attributes');
    const signature = new Uint8Array(sign('sha256', data, privateKey));
    expect(await crypto.verify(algorithm, spki(publicKey), data, signature)).toBe(true);
    expect(await crypto.verify(algorithm, spki(publicKey), new TextEncoder().encode('other data'), signature)).toBe(false);
    expect(await crypto.verify(algorithm, spki(other), data, signature)).toBe(false);
    expect(await crypto.verify(algorithm, new Uint8Array([1, 2, 3]), data, signature)).toBe(false);
  });
});

describe('helpers', () => {
  it('sameProof takes only the exact expected value', () => {
    expect(sameProof(VECTOR.proof, VECTOR.proof)).toBe(true);
    for (const other of [null, '', VECTOR.proof.toUpperCase(), VECTOR.proof.slice(1), `${VECTOR.proof}0`, VECTOR.signature]) expect(sameProof(VECTOR.proof, other), String(other)).toBe(false);
  });

  it('ecdsaDerToRaw: DER Ecdsa-Sig-Value to fixed-width r‖s, short integers padded, sign bytes dropped', () => {
    const der = Uint8Array.from([0x30, 0x08, 0x02, 0x02, 0x00, 0x81, 0x02, 0x02, 0x01, 0x02]);
    expect(hexOf(ecdsaDerToRaw(der, 4)!)).toBe('0000008100000102');
    expect(ecdsaDerToRaw(der.subarray(0, 9), 4)).toBeNull();
    expect(ecdsaDerToRaw(Uint8Array.from([0x31, ...der.subarray(1)]), 4)).toBeNull();
  });
});
