import { describe, expect, it } from 'vitest';
import {
  NonceCache,
  parseSignatureHeader,
  requestMessage,
  requestSignature,
  sameHex,
  secretSha256,
  serviceProof,
} from '../../../src/store/wrapper-signatures';

/**
 * The proof and request-signature vector, computed with openssl (not with this code):
 *   H=$(printf %s "$SECRET" | openssl dgst -sha256 -r | cut -d' ' -f1)
 *   PK=$(printf %s localsign-service-proof-key-v1 | openssl dgst -sha256 -mac HMAC -macopt hexkey:$H -r | cut -d' ' -f1)
 *   printf 'localsign-service-proof-v1\n%s\n%s' "$KEY" "$CHALLENGE" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$PK
 *   RK=$(printf %s localsign-request-key-v1 | openssl dgst -sha256 -mac HMAC -macopt hexkey:$H -r | cut -d' ' -f1)
 *   printf 'localsign-request-v1\nPOST\n/v1/pades/sign?credential_key=abc\n1764331200\n%s\n%s' "$CHALLENGE" "$KEY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$RK
 * The TypeScript client's test (clients/typescript/test/proof.test.ts) holds the same vector.
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

describe('wrapper signatures', () => {
  it('reproduce the openssl vector: the secret hash, the proof, the request signature', () => {
    expect(secretSha256(VECTOR.secret).toString('hex')).toBe(VECTOR.secretSha256);
    expect(serviceProof(VECTOR.secretSha256, VECTOR.key, VECTOR.challenge)).toBe(VECTOR.proof);
    const message = requestMessage({ ...VECTOR.request, nonce: VECTOR.challenge, key: VECTOR.key });
    expect(requestSignature(VECTOR.secretSha256, message)).toBe(VECTOR.signature);
    // The two derived keys differ: a proof is never a request signature for the same text.
    expect(requestSignature(VECTOR.secretSha256, `localsign-service-proof-v1\n${VECTOR.key}\n${VECTOR.challenge}`)).not.toBe(VECTOR.proof);
  });

  it('the header is read strictly', () => {
    expect(parseSignatureHeader(`t=1764331200,n=${VECTOR.challenge},s=${VECTOR.signature}`)).toEqual({ time: 1764331200, nonce: VECTOR.challenge, signature: VECTOR.signature });
    for (const bad of ['', `t=1,n=abc,s=${VECTOR.signature}`, `t=-1,n=${VECTOR.challenge},s=${VECTOR.signature}`, `n=${VECTOR.challenge},t=1,s=${VECTOR.signature}`, `t=1,n=${VECTOR.challenge.toUpperCase()},s=${VECTOR.signature}`, `t=1,n=${VECTOR.challenge},s=${VECTOR.signature}0`]) {
      expect(parseSignatureHeader(bad), bad).toBeNull();
    }
  });

  it('sameHex compares only equal-length lowercase hex', () => {
    expect(sameHex(VECTOR.proof, VECTOR.proof)).toBe(true);
    expect(sameHex(VECTOR.proof, VECTOR.proof.toUpperCase())).toBe(false);
    expect(sameHex(VECTOR.proof, VECTOR.proof.slice(2))).toBe(false);
  });

  it('a nonce is refused while remembered, and remembered at least one generation', () => {
    const cache = new NonceCache(1000);
    expect(cache.admit('a', 0)).toBe(true);
    expect(cache.admit('a', 999)).toBe(false);
    expect(cache.admit('b', 1000)).toBe(true); // a new generation: 'a' moves to the previous one
    expect(cache.admit('a', 1500)).toBe(false);
    expect(cache.admit('c', 2000)).toBe(true); // 'a' is dropped with its generation
    expect(cache.admit('a', 2001)).toBe(true);
    // A long silence forgets both generations at once.
    expect(cache.admit('c', 10_000)).toBe(true);
  });
});
