import { SigningError } from '../../domain/errors';
import { CHIP_PIN_DESCRIPTION } from '../../domain/request-body';
import { addressFromPublicKey, formatEvmSignature, MAX_CHAIN_ID, normaliseLowS, recoverAddress } from '../../evm';
import type { CachedCredential } from '../../store/catalog-types';
import type { KindParams, RequestEntry } from '../../store/request-store';
import { chipPinOf } from '../chip-pin';
import type { RawSignature, SigningEngine } from '../engine';
import type { Job, JobDeps, JobRun } from '../job-types';
import { kindRoute, type CredentialType, type KindJob, type SignatureKind } from '../kind';

/** What a blockchain request needs to run or resume. */
export type EvmParams = KindParams & {
  /** 64 lowercase hex digits, no 0x. */
  txHash: string;
  chainId: number | null;
};

/** PLATFORM.md: a transaction hash is kind "blockchain", keccak256, answered as r, s, recovery_id. */
const EVM_WIRE = { kind: 'blockchain', digestAlgorithm: 'keccak256', answer: 'recoverable' } as const;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX32 = '^0x[0-9a-f]{64}$';

/** EIP-55 address per public key: a keccak256 on the event loop, derived once, not per request. */
const addresses = new Map<string, string>();
function addressOf(publicKeyHex: string, publicKey: Uint8Array): string {
  let address = addresses.get(publicKeyHex);
  if (address === undefined) {
    address = addressFromPublicKey(publicKey);
    addresses.set(publicKeyHex, address);
  }
  return address;
}

/**
 * Credentials of type "evm" (PLATFORM.md "Catalogue"): an EIP-55 address; on a chip, the
 * secp256k1 key whose address it is, its public point kept for the recovery check.
 */
export const evmCredentials: CredentialType = {
  name: 'evm',
  takesDesign: false,
  readFields: (entry) => ({ address: entry.text('address', ADDRESS) }),
  bindChipKey: (c, key) =>
    key.algorithm !== 'secp256k1' || addressFromPublicKey(key.publicKey).toLowerCase() !== c.address!.toLowerCase()
      ? { problem: `the chip key ${c.chip_key_id} is not the key of address ${c.address}` }
      : { fields: { public_key_hex: Buffer.from(key.publicKey).toString('hex') } },
  algorithmOf: () => 'ecdsa-secp256k1',
  present: (c) => ({ address: c.address }),
};

/**
 * The credential's public key when the cache holds one (a chip credential), checked to be the
 * key of its address: the recovery check proves a signature recovers to this key, and this
 * proves the key is the address the chain will recover.
 */
function publicKeyOf(credential: CachedCredential): Uint8Array | null {
  if (!credential.public_key_hex) return null;
  const publicKey = new Uint8Array(Buffer.from(credential.public_key_hex, 'hex'));
  if (addressOf(credential.public_key_hex, publicKey) !== credential.address) {
    throw new SigningError(`credential ${credential.credential_key}: its public key does not match its address ${credential.address}; run sync`);
  }
  return publicKey;
}

/**
 * An engine's secp256k1 answer as a transaction takes it: r and s in 1..n-1, s brought to low-s
 * (EIP-2: the mirror image flips the recovery id), and the recovery id under which (r, s)
 * recovers to the credential. A recovery id the engine checked itself against the credential's
 * key (`recoveryChecked`: the soft chip's one signing-thread task) is taken as it is; with the
 * credential's public key the fixed-key check runs on a signing thread (evm/recovery.ts); with
 * its address only (a credential the platform signs) the address is recovered here, under the
 * id the engine gave, or under each.
 */
async function recoverableAnswer(o: {
  answer: RawSignature;
  digest: Uint8Array;
  credential: CachedCredential;
  publicKey: Uint8Array | null;
  engine: SigningEngine;
  deps: Pick<JobDeps, 'runTask'>;
  signal: AbortSignal;
}): Promise<{ r: bigint; s: bigint; yParity: 0 | 1 }> {
  const { r, s, flipped } = normaliseLowS(o.answer.signature);
  const given = o.answer.recoveryId === undefined ? undefined : (((o.answer.recoveryId ^ (flipped ? 1 : 0)) as 0 | 1));
  // Checked against the key this kind gave it (`recoverTo`); a claim without that key counts for nothing.
  if (given !== undefined && o.answer.recoveryChecked && o.publicKey) return { r, s, yParity: given };
  if (o.publicKey) return { r, s, yParity: (await o.deps.runTask({ op: 'evm-recover', publicKey: o.publicKey, digest: o.digest, r, s }, { signal: o.signal })) as 0 | 1 };
  let recovered: string | null = null;
  for (const yParity of given === undefined ? ([0, 1] as const) : [given]) {
    try {
      recovered = recoverAddress(o.digest, r, s, yParity);
    } catch {
      recovered = null;
    }
    if (recovered !== null && recovered.toLowerCase() === o.credential.address!.toLowerCase()) return { r, s, yParity };
  }
  throw new SigningError(`${o.engine.signer}'s signature recovers to ${recovered ?? 'no address'}, not to the address ${o.credential.address} of credential ${o.credential.credential_key}; nothing was signed`);
}

/** An evm credential of the cache, or the error that it no longer is one. */
export function evmCredentialOf(credential: CachedCredential | undefined, key: string): CachedCredential & { address: string } {
  if (!credential || credential.type !== evmCredentials.name || !credential.address) {
    throw new SigningError(`credential ${key} is no longer an EVM credential in the cache`);
  }
  return credential as CachedCredential & { address: string };
}

/**
 * An evm credential's key signs `digest` (a keccak256) and the answer is checked as a transaction
 * takes it (recoverableAnswer): what a kind over such a digest does between its request and its
 * result, the blockchain kind and any other (an EIP-191 message).
 */
export async function signRecoverable(o: { entry: RequestEntry; deps: JobDeps; run: JobRun; credential: CachedCredential; digest: Uint8Array; chainId: number | null }): Promise<{ r: bigint; s: bigint; yParity: 0 | 1 }> {
  const { entry, run } = o;
  const digestHex = Buffer.from(o.digest).toString('hex');
  const publicKey = publicKeyOf(o.credential);
  const answer = await run.engine.sign(
    {
      requestId: entry.requestId,
      credential: o.credential,
      digest: o.digest,
      algorithm: evmCredentials.algorithmOf(o.credential),
      label: { ...EVM_WIRE, chainId: o.chainId },
      ...(publicKey ? { recoverTo: publicKey } : {}),
      resumed: run.resumed,
      pin: chipPinOf(entry, run),
      caller: entry.wrapperKey ?? undefined,
      onSigning: () => run.signing(digestHex),
    },
    run.signal,
  );
  run.signed(digestHex);
  return recoverableAnswer({ answer, digest: o.digest, credential: o.credential, publicKey, engine: run.engine, deps: o.deps, signal: run.signal });
}

/**
 * Blockchain signing (CONTRACT "Result semantics"): the engine signs the 32-byte hash, s is brought
 * to low-s (EIP-2), the recovery id is the one whose recovered key is the credential's, and the
 * address recovered must equal the credential's address before DONE.
 */
export const runEvmJob: Job<EvmParams> = async (entry, deps, run) => {
  const credential = evmCredentialOf(run.accepted?.credential ?? deps.findCredential(entry.credentialKey), entry.credentialKey);
  const { txHash, chainId } = entry.params;
  const { r, s, yParity } = await signRecoverable({ entry, deps, run, credential, digest: new Uint8Array(Buffer.from(txHash, 'hex')), chainId });
  return { result: { ...formatEvmSignature({ r, s, yParity, chainId, address: credential.address }) }, digestHex: txHash };
};

const EVM_JOB: KindJob<EvmParams> = {
  run: runEvmJob,
  // The hash to sign is the request itself: every record of it names the hash.
  auditDigest: (entry) => entry.params.txHash,
  digestOut: async () => true,
};

/** POST /v1/blockchain/sign (spec §4, CONTRACT tx_hash and chain_id). */
export const BLOCKCHAIN_SIGN_BODY = {
  tx_hash: { kind: 'hash32', required: true, description: 'keccak256 of the transaction: 64 hex digits, with or without 0x, any case' },
  credential_key: { kind: 'text', required: true, nonEmpty: true, description: 'An evm credential (GET /v1/credentials)' },
  chain_id: { kind: 'chain_id', required: false, description: 'EIP-155 chain id: v = chain_id * 2 + 35 + y_parity; absent or null: v = 27 + y_parity' },
  chip_pin: { kind: 'pin', required: false, description: CHIP_PIN_DESCRIPTION },
} as const;

export const evmKind: SignatureKind<EvmParams> = {
  name: 'blockchain',
  title: 'blockchain signing',
  credential: evmCredentials,
  document: null,
  platform: EVM_WIRE,
  route: kindRoute({
    id: 'signHash',
    path: '/v1/blockchain/sign',
    summary: 'Sign a keccak256 transaction hash (secp256k1, low-s, EIP-155 v)',
    body: BLOCKCHAIN_SIGN_BODY,
    accept: (b) => ({ credentialKey: b.credential_key, chipPin: b.chip_pin, params: { txHash: Buffer.from(b.tx_hash).toString('hex'), chainId: b.chain_id } }),
  }),
  resultSchema: {
    name: 'EvmResult',
    schema: {
      type: 'object',
      required: ['request_id', 'status', 'r', 's', 'v', 'y_parity', 'address', 'chain_id'],
      properties: {
        request_id: { type: 'string' },
        status: { const: 'DONE' },
        r: { type: 'string', pattern: HEX32, description: '0x + 64 lowercase hex digits' },
        s: { type: 'string', pattern: HEX32, description: '0x + 64 lowercase hex digits, low-s (EIP-2)' },
        v: { type: 'integer', minimum: 27, description: '27 + y_parity without chain_id; chain_id * 2 + 35 + y_parity with it (EIP-155)' },
        y_parity: { enum: [0, 1], description: 'The recovery id; typed transactions use it' },
        address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', description: 'EIP-55 address of the credential; the service recovered it from the signature' },
        chain_id: { type: ['integer', 'null'], minimum: 1, maximum: MAX_CHAIN_ID },
      },
    },
  },
  job: async () => EVM_JOB,
};
