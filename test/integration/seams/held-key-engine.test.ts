/**
 * Issue 29, "adding an engine is one file": this file adds one. Engine "held-key" signs each
 * digest with a private key this test holds (a stand-in for a cloud KMS: a key the service never
 * sees), for the algorithm the credential's key declares, and answers the raw signature only (no
 * recovery id), as the engine contract asks. It is registered the way the built-in ones are, by
 * one entry in the context's `engines` (src/signing/engines/index.ts BUILT_IN_ENGINES holds the
 * built-in ones), so the service runs in this process: a spawned bundle has no way to load a test's
 * engine. Its credentials come from the platform double's catalogue with `engine: "held-key"`, and
 * the built-in kinds sign with it end to end through the HTTP API, untouched: PAdES with RSA and
 * P-256 (pdfsig trusts the result with the double's root) and EVM (ethers recovers the address).
 */
import { constants, createHash, createPrivateKey, privateEncrypt, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256DigestInfo } from '../../../src/der/keys';
import { SigningError } from '../../../src/domain/errors';
import type { EngineDefinition, KeyAlgorithm } from '../../../src/signing/engines';
import { smallPdf } from '../../helpers/api-fixtures';
import { startServiceInProcess, type InProcessService } from '../../helpers/in-process-service';
import { createNssTrustDb, runPdfsig } from '../../helpers/pdf-tools';
import { startPlatformDouble, type PlatformDouble } from '../../helpers/platform-double';
import { authed, waitForResult } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { accept, pairWith, wrapperFor, type Call } from '../platform/_platform';

/** The keys the engine holds (a KeyObject, or a secp256k1 scalar), by credential key, and what it was asked to do. */
const held = new Map<string, KeyObject | Uint8Array>();
const asked: { credential: string; algorithm: KeyAlgorithm }[] = [];

/** The raw private scalar of an EC key (JWK `d`), as noble signs with it. */
const scalarOf = (key: KeyObject | Uint8Array) => (key instanceof Uint8Array ? key : Buffer.from(key.export({ format: 'jwk' }).d!, 'base64url'));

const heldKeyEngine: EngineDefinition = {
  name: 'held-key',
  signer: 'the held key',
  summary: 'a key held by the test that registered this engine',
  remote: false,
  onChip: false,
  make: () => ({
    recovers: false,
    async sign(request) {
      const key = held.get(request.credential.credential_key);
      if (!key) throw new SigningError(`no key is held for credential ${request.credential.credential_key}`);
      asked.push({ credential: request.credential.credential_key, algorithm: request.algorithm });
      switch (request.algorithm) {
        case 'rsa-pkcs1-sha256': // RFC 8017 §8.2: RSASSA-PKCS1-v1_5 over DigestInfo(sha256, digest)
          return { signature: privateEncrypt({ key: key as KeyObject, padding: constants.RSA_PKCS1_PADDING }, sha256DigestInfo(request.digest)) };
        case 'ecdsa-p256':
          return { signature: p256.sign(request.digest, scalarOf(key), { prehash: false, format: 'compact' }) };
        case 'ecdsa-secp256k1':
          // s as the key makes it, high or low: the kind brings it to low-s (EIP-2).
          return { signature: secp256k1.sign(request.digest, scalarOf(key), { prehash: false, lowS: false, format: 'compact' }) };
      }
    },
  }),
};

const N = secp256k1.Point.CURVE().n;

/** A hash the wallet's key signs with a high s (as a token may): the kind must bring it to low-s. */
function highSHash(scalar: Uint8Array): string {
  for (let i = 0; ; i += 1) {
    const hash = createHash('sha256').update(`tx ${i}`).digest();
    const raw = secp256k1.sign(hash, scalar, { prehash: false, lowS: false, format: 'compact' });
    if (BigInt('0x' + Buffer.from(raw.subarray(32)).toString('hex')) > N / 2n) return '0x' + hash.toString('hex');
  }
}

describe('an engine added in one file (issue 29)', () => {
  const tmp = makeTmpHome('localsign-held-key-');
  let double: PlatformDouble;
  let service: InProcessService;
  let call: Call;
  let nssDir: string;

  beforeAll(async () => {
    double = await startPlatformDouble();
    // Paired with the built CLI while the catalogue has only the double's own credentials: a
    // service without this engine refuses a catalogue that names it (unknown engine).
    await pairWith(double, tmp.home);
    held.set('held-rsa', createPrivateKey(readFileSync(double.keys.rsa.key_pem_path)));
    held.set('held-p256', createPrivateKey(readFileSync(double.keys.p256.key_pem_path)));
    held.set('held-wallet', Buffer.from(double.keys.wallet.private_key_hex, 'hex'));
    await double.control.upsertCredential({ credential_key: 'held-rsa', type: 'pades', name: 'Held RSA', engine: 'held-key', default_design_key: null, certificate_chain: double.keys.rsa.chain_base64 });
    await double.control.upsertCredential({ credential_key: 'held-p256', type: 'pades', name: 'Held P-256', engine: 'held-key', default_design_key: double.keys.designs.standard, certificate_chain: double.keys.p256.chain_base64 });
    await double.control.upsertCredential({ credential_key: 'held-wallet', type: 'evm', name: 'Held wallet', engine: 'held-key', default_design_key: null, address: double.walletAddress });
    // The registration: one entry, as BUILT_IN_ENGINES lists the chip and the platform.
    service = await startServiceInProcess({ home: tmp.home, engines: [heldKeyEngine] });
    call = authed(service.url, wrapperFor(tmp.home));
    nssDir = await createNssTrustDb(mkdtempSync(join(tmp.home, 'nss-')), [readFileSync(double.rootDerPath)]);
  });
  afterAll(async () => {
    await service?.stop();
    await double?.stop();
    tmp.cleanup();
  });

  it('the catalogue takes its credentials and the API names it', async () => {
    const { credentials } = (await (await call('/v1/credentials')).json()) as { credentials: Record<string, unknown>[] };
    expect(credentials.filter((c) => c.engine === 'held-key').map((c) => [c.credential_key, c.type]).sort()).toEqual([['held-p256', 'pades'], ['held-rsa', 'pades'], ['held-wallet', 'evm']]);
    const doc = (await (await call('/openapi.json')).json()) as { components: { schemas: { Credential: { properties: { engine: { enum: string[] } } } } } };
    expect(doc.components.schemas.Credential.properties.engine.enum).toEqual(['chip', 'platform', 'held-key']);
  });

  it('signs PDFs with RSA and P-256 keys it holds: pdfsig trusts them with the double\'s root', async () => {
    const pdf = (await smallPdf('signed by a held key')).toString('base64');
    for (const credential of ['held-rsa', 'held-p256']) {
      const id = await accept(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: credential, signer_name: `Held ${credential}` });
      const result = await waitForResult(call, id);
      expect(result.status, JSON.stringify(result)).toBe('DONE');
      const file = join(tmp.home, `${credential}.pdf`);
      writeFileSync(file, Buffer.from(String(result.pdf_base64), 'base64'));
      const report = await runPdfsig(file, { nssDir });
      expect(report.signatures, report.raw).toHaveLength(1);
      expect(report.signatures[0]!.validation, report.raw).toBe('Signature is Valid.');
      expect(report.signatures[0]!.certificateStatus, report.raw).toBe('Certificate is Trusted.');
    }
    expect(asked.filter((a) => a.credential !== 'held-wallet')).toEqual([{ credential: 'held-rsa', algorithm: 'rsa-pkcs1-sha256' }, { credential: 'held-p256', algorithm: 'ecdsa-p256' }]);
    // Nothing went to the platform: the held key signed.
    expect(await double.control.signRequests()).toEqual([]);
  });

  it('signs a transaction hash: a high s made low, the recovery id found by the kind, ethers recovers the address', async () => {
    const TX = highSHash(held.get('held-wallet') as Uint8Array);
    const id = await accept(call, '/v1/blockchain/sign', { tx_hash: TX, credential_key: 'held-wallet', chain_id: 1 });
    const result = await waitForResult(call, id);
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    expect(result.address).toBe(double.walletAddress);
    expect(BigInt(String(result.s)) <= N / 2n).toBe(true);
    expect(recoverAddress(TX, Signature.from({ r: String(result.r), s: String(result.s), v: Number(result.v) }))).toBe(double.walletAddress);
    expect(asked.at(-1)).toEqual({ credential: 'held-wallet', algorithm: 'ecdsa-secp256k1' });
  });

  it('a chip_pin is refused for its credentials, naming who signs them', async () => {
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: '0x' + 'ab'.repeat(32), credential_key: 'held-wallet', chip_pin: '1234' }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: string }).error).toBe('chip_pin is only for chip credentials; held-wallet is signed by the held key');
  });
});
