import { tmpdir } from 'node:os';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { computeAddress, recoverAddress, Signature } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { Chip } from '../../../../src/chip/types';
import { signDigestSecp256k1 } from '../../../../src/evm';
import { runEvmJob } from '../../../../src/signing/kinds/evm';
import { builtInSigning } from '../../../helpers/signing-tables';
import type { EvmParams } from '../../../../src/signing/kinds';
import { HttpClient } from '../../../../src/net/http-client';
import { DocumentStore } from '../../../../src/store/document-store';
import { PlatformResultHub } from '../../../../src/platform/remote/results';
import type { JobDeps } from '../../../../src/signing/job-types';
import { inlineDocumentWork } from '../../../helpers/document-work';
import { runSignTask } from '../../../../src/signing/sign-tasks';
import type { RequestEntry } from '../../../../src/store/request-store';

const SECRET = new Uint8Array(32).fill(0x46);
const PUBLIC = secp256k1.getPublicKey(SECRET, false);
const ADDRESS = computeAddress('0x' + Buffer.from(PUBLIC).toString('hex'));
const TX = 'daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';

/** A chip like a PKCS#11 token: raw r‖s, s as it comes, no recovery id (no signRecoverable). */
const tokenLike: Chip = {
  kind: 'pkcs11',
  listKeys: async () => [],
  signDigest: async (_id, digest) => signDigestSecp256k1(SECRET, digest),
  close: async () => undefined,
};

const entry = (chainId: number | null): RequestEntry<EvmParams> => ({
  requestId: 'req_1', kind: 'blockchain', status: 'PENDING', credentialKey: 'k', wrapperKey: 'w',
  createdAt: '2026-11-22T10:00:00.000Z', completedAt: null, params: { engine: 'chip', txHash: TX, chainId: chainId },
});

const RUN = { signal: new AbortController().signal, resumed: false, signing: () => undefined, signed: () => undefined };
/** A run of `d`'s chip engine, as the runner makes it. */
const runOf = (d: JobDeps) => ({ ...RUN, engine: d.engines('chip') });

const deps = (address: string): JobDeps => ({
  now: () => new Date('2026-11-22T10:00:00Z'),
  ...builtInSigning({ getChip: async () => tokenLike }),
  documentWork: inlineDocumentWork(),
  findCredential: () => ({ credential_key: 'k', type: 'evm', name: 'w', engine: 'chip', default_design_key: null, address, chip_key_id: '03', public_key_hex: Buffer.from(PUBLIC).toString('hex') }),
  findDesign: () => undefined,
  documents: new DocumentStore({ work: tmpdir(), results: tmpdir() }),
  tsaUrl: null,
  http: new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null }),
});

describe('runEvmJob with a chip that gives raw r‖s', () => {
  it('normalises s, finds the recovery id and answers EIP-155 v; ethers recovers the address', async () => {
    const { result, digestHex } = await runEvmJob(entry(1), deps(ADDRESS), runOf(deps(ADDRESS)));
    expect(digestHex).toBe(TX);
    expect(result).toMatchObject({ address: ADDRESS, chain_id: 1 });
    expect(BigInt(String(result.s)) <= secp256k1.Point.CURVE().n / 2n).toBe(true);
    expect(result.v).toBe(37 + Number(result.y_parity));
    expect(recoverAddress('0x' + TX, Signature.from({ r: String(result.r), s: String(result.s), v: Number(result.v) }))).toBe(ADDRESS);
  });

  it('refuses a credential whose cached address is not its public key\'s', async () => {
    const other = computeAddress('0x' + Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(0x47), false)).toString('hex'));
    await expect(runEvmJob(entry(null), deps(other), runOf(deps(other)))).rejects.toThrow(`credential k: its public key does not match its address ${other}; run sync`);
  });
});
