/**
 * Issue 29, "adding a kind is one file": this file adds one. Kind "personal_sign" signs a 32-byte
 * message as EIP-191 version 0x45 (what wallets call personal_sign): keccak256 of
 * "\x19Ethereum Signed Message:\n32" and the message, with an evm credential, answered as the
 * 65-byte signature r‖s‖v that `ethers.verifyMessage` checks. The kind brings its route and body
 * (POST /v1/personal/sign), its params (journaled under their stored names by the store's rule),
 * its result and its words for the platform, and reuses the EVM kind's answer check (low-s, the
 * recovery id to the credential's address). It is registered the way the built-in ones are, by
 * one entry in the context's `kinds` (src/signing/kinds/index.ts BUILT_IN_KINDS holds the
 * built-in ones), so the service runs in this process: a spawned bundle has no way to load a
 * test's kind. The built-in engines sign it untouched, end to end through the HTTP API: the
 * software chip (its one-task sign and recovery) and the remote platform (the platform double).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { hashMessage, verifyMessage } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHIP_PIN_DESCRIPTION } from '../../../src/domain/request-body';
import { evmCredentialOf, evmCredentials, kindRoute, signRecoverable, type SignatureKind } from '../../../src/signing/kinds';
import type { KindParams } from '../../../src/store/request-store';
import { startServiceInProcess, type InProcessService } from '../../helpers/in-process-service';
import { startPlatformDouble, type PlatformDouble } from '../../helpers/platform-double';
import { authed, initEmbeddedWithWrapper, waitForResult } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { accept, pairWith, wrapperFor, type Call } from '../platform/_platform';

type PersonalSignParams = KindParams & {
  /** The message, 64 lowercase hex digits. */
  messageHex: string;
};

/** EIP-191 version 0x45 over a 32-byte message: keccak256("\x19Ethereum Signed Message:\n32" ‖ message). */
const digestOf = (messageHex: string) => keccak_256(Buffer.concat([Buffer.from('\x19Ethereum Signed Message:\n32'), Buffer.from(messageHex, 'hex')]));
const hex32 = (n: bigint) => n.toString(16).padStart(64, '0');

const personalSignKind: SignatureKind<PersonalSignParams> = {
  name: 'personal_sign',
  title: 'EIP-191 message signing',
  credential: evmCredentials,
  document: null,
  // A keccak256 digest with r, s and a recovery id, as the platform signs a transaction hash.
  platform: { kind: 'blockchain', digestAlgorithm: 'keccak256', answer: 'recoverable' },
  route: kindRoute({
    id: 'signMessage',
    path: '/v1/personal/sign',
    summary: 'Sign a 32-byte message as EIP-191 personal_sign (secp256k1, low-s, v 27 or 28)',
    body: {
      message_hex: { kind: 'hash32', required: true, description: 'The message: 64 hex digits, with or without 0x' },
      credential_key: { kind: 'text', required: true, nonEmpty: true, description: 'An evm credential (GET /v1/credentials)' },
      chip_pin: { kind: 'pin', required: false, description: CHIP_PIN_DESCRIPTION },
    } as const,
    accept: (b) => ({ credentialKey: b.credential_key, chipPin: b.chip_pin, params: { messageHex: Buffer.from(b.message_hex).toString('hex') } }),
  }),
  resultSchema: {
    name: 'PersonalSignResult',
    schema: {
      type: 'object',
      required: ['request_id', 'status', 'signature', 'address'],
      properties: {
        request_id: { type: 'string' },
        status: { const: 'DONE' },
        signature: { type: 'string', pattern: '^0x[0-9a-f]{130}$', description: 'r ‖ s (low-s) ‖ v (27 + y_parity)' },
        address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
      },
    },
  },
  job: async () => ({
    async run(entry, deps, run) {
      const credential = evmCredentialOf(run.accepted?.credential ?? deps.findCredential(entry.credentialKey), entry.credentialKey);
      const digest = digestOf(entry.params.messageHex);
      const { r, s, yParity } = await signRecoverable({ entry, deps, run, credential, digest, chainId: null });
      return { result: { signature: `0x${hex32(r)}${hex32(s)}${(27 + yParity).toString(16)}`, address: credential.address }, digestHex: Buffer.from(digest).toString('hex') };
    },
    auditDigest: (entry) => Buffer.from(digestOf(entry.params.messageHex)).toString('hex'),
    digestOut: async () => true,
  }),
};

const MESSAGE = '0x' + Buffer.from('a 32-byte message, signed once..').toString('hex');

/** The service of `home` in this process, with the kind registered: one entry, as BUILT_IN_KINDS lists PAdES and EVM. */
const serviceWithKind = (home: string) => startServiceInProcess({ home, kinds: [personalSignKind] });

async function signMessage(call: Call, credentialKey: string): Promise<Record<string, unknown>> {
  const id = await accept(call, '/v1/personal/sign', { message_hex: MESSAGE, credential_key: credentialKey });
  const result = await waitForResult(call, id);
  expect(result.status, JSON.stringify(result)).toBe('DONE');
  return { id, ...result };
}

describe('a kind added in one file (issue 29)', () => {
  describe('signed by the software chip (embedded platform)', () => {
    const tmp = makeTmpHome('localsign-personal-chip-');
    let service: InProcessService;
    let call: Call;
    let wallet: string;
    let pades: string;

    beforeAll(async () => {
      const creds = initEmbeddedWithWrapper(tmp.home);
      service = await serviceWithKind(tmp.home);
      call = authed(service.url, creds);
      const { credentials } = (await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string }[] };
      wallet = credentials.find((c) => c.type === 'evm')!.credential_key;
      pades = credentials.find((c) => c.type === 'pades')!.credential_key;
    });
    afterAll(async () => {
      await service?.stop();
      tmp.cleanup();
    });

    it('answers a signature ethers.verifyMessage recovers to the credential\'s address', async () => {
      const result = await signMessage(call, wallet);
      expect(result.signature).toMatch(/^0x[0-9a-f]{128}(1b|1c)$/);
      expect(verifyMessage(Buffer.from(MESSAGE.slice(2), 'hex'), String(result.signature))).toBe(result.address);
      // Its params are journaled under their stored names, as every kind's are.
      const line = readFileSync(join(tmp.home, 'requests.jsonl'), 'utf8').split('\n').find((l) => l.includes(String(result.id)) && l.includes('"t":"c"'))!;
      expect(JSON.parse(line).e).toMatchObject({ kind: 'personal_sign', params: { engine: 'chip', message_hex: MESSAGE.slice(2) } });
    });

    it('refuses a credential of another type in its words, and is listed and documented like a built-in kind', async () => {
      const res = await call('/v1/personal/sign', { method: 'POST', body: JSON.stringify({ message_hex: MESSAGE, credential_key: pades }) });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: string }).error).toBe(`credential_key ${pades} is a pades credential; EIP-191 message signing needs an evm one`);
      const { results } = (await (await call('/v1/results')).json()) as { results: { kind: string }[] };
      expect(results.map((r) => r.kind)).toContain('personal_sign');
      const doc = (await (await call('/openapi.json')).json()) as { paths: Record<string, { post?: { operationId: string } }>; components: { schemas: { Result: { oneOf: { $ref: string }[] } } } };
      expect(doc.paths['/v1/personal/sign']?.post?.operationId).toBe('signMessage');
      expect(doc.components.schemas.Result.oneOf.map((r) => r.$ref)).toContain('#/components/schemas/PersonalSignResult');
    });
  });

  describe('signed by the remote platform (the platform double)', () => {
    const tmp = makeTmpHome('localsign-personal-platform-');
    let double: PlatformDouble;
    let service: InProcessService;
    let call: Call;

    beforeAll(async () => {
      double = await startPlatformDouble();
      await pairWith(double, tmp.home);
      await double.control.setSettings({ push_enabled: false, approval: { mode: 'auto', delay_ms: 0 } });
      const creds = wrapperFor(tmp.home);
      service = await serviceWithKind(tmp.home);
      call = authed(service.url, creds);
    });
    afterAll(async () => {
      await service?.stop();
      await double?.stop();
      tmp.cleanup();
    });

    it('goes out labelled as its table says, and the platform\'s answer is checked to the address', async () => {
      const result = await signMessage(call, double.keys.wallet.credential_key);
      expect(result.address).toBe(double.walletAddress);
      expect(verifyMessage(Buffer.from(MESSAGE.slice(2), 'hex'), String(result.signature))).toBe(double.walletAddress);
      const [sent] = (await double.control.signRequests()).filter((r) => r.request_id === result.id);
      expect(sent!.body).toEqual({
        request_id: result.id,
        credential_key: double.keys.wallet.credential_key,
        kind: 'blockchain',
        digest_hex: hashMessage(Buffer.from(MESSAGE.slice(2), 'hex')).slice(2),
        chain_id: null,
        digest_algorithm: 'keccak256',
      });
    });

    it('a platform signing with another key is refused, naming the address it recovers to', async () => {
      await double.control.setSettings({ wrong_key: true });
      try {
        const id = await accept(call, '/v1/personal/sign', { message_hex: MESSAGE, credential_key: double.keys.wallet.credential_key });
        const result = await waitForResult(call, id);
        expect(result.status).toBe('ERROR');
        expect(String(result.error)).toMatch(/^the platform's signature recovers to 0x[0-9a-fA-F]{40}, not to the address .* nothing was signed$/);
      } finally {
        await double.control.setSettings({ wrong_key: false });
      }
    });
  });
});
