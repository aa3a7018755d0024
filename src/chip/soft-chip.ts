import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ChipError } from '../domain/errors';
import { readFileIfExists, writeFileAtomic } from '../store/atomic-file';
import { p256SpkiFromSecret } from './soft-keys';
import type { Chip, ChipKey, ChipKeyAlgorithm, SoftSignTask, SoftSignTaskResult } from './types';

/** soft-chip.json (0600): the embedded default's keys. Private material never leaves this file. */
export interface SoftChipKeyRecord {
  id: string;
  label: string;
  algorithm: ChipKeyAlgorithm;
  /** rsa: PKCS#8 PEM. p256/secp256k1: 32-byte scalar, hex. */
  private_key: string;
  /** base64 DER */
  certificate: string | null;
  chain: string[];
}

export interface SoftChipFile {
  keys: SoftChipKeyRecord[];
}

/** The signing pool's `run`: an aborted signal keeps a task from ever starting (workers/pool.ts). */
type RunTask = (task: SoftSignTask, o?: { signal?: AbortSignal }) => Promise<SoftSignTaskResult>;

const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');
const fromB64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

/** Generates a key in the record's format; the public key in ChipKey form. */
export function generateSoftKey(algorithm: ChipKeyAlgorithm): { privateKey: string; publicKey: Uint8Array } {
  switch (algorithm) {
    case 'rsa': {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      return {
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        publicKey: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })),
      };
    }
    case 'p256': {
      const sk = p256.utils.randomSecretKey();
      return { privateKey: Buffer.from(sk).toString('hex'), publicKey: p256SpkiFromSecret(sk) };
    }
    case 'secp256k1': {
      const sk = secp256k1.utils.randomSecretKey(randomBytes(48));
      return { privateKey: Buffer.from(sk).toString('hex'), publicKey: secp256k1.getPublicKey(sk, false) };
    }
  }
}

/** The secret scalar of an EC key record (p256, secp256k1), stored as hex. */
function scalarOf(record: SoftChipKeyRecord): Uint8Array {
  return new Uint8Array(Buffer.from(record.private_key, 'hex'));
}

export function readSoftChipFile(path: string): SoftChipFile | null {
  const raw = readFileIfExists(path);
  if (!raw) return null;
  let file: SoftChipFile;
  try {
    file = JSON.parse(raw.toString('utf8')) as SoftChipFile;
  } catch (cause) {
    // The chip is the signing engine: a broken chip is a 502 with a cause, not an internal error.
    throw new ChipError(`the software chip file ${path} is not readable JSON; restore it from a backup or run \`localsign init --embedded\` in a new config dir`, { cause });
  }
  if (!file || !Array.isArray(file.keys)) throw new ChipError(`the software chip file ${path} has no key list`);
  return file;
}

export function writeSoftChipFile(path: string, file: SoftChipFile): void {
  writeFileAtomic(path, JSON.stringify(file, null, 2) + '\n');
}

export function toSoftChipRecord(o: {
  id: string;
  label: string;
  algorithm: ChipKeyAlgorithm;
  privateKey: string;
  certificate: Uint8Array | null;
  chain: Uint8Array[];
}): SoftChipKeyRecord {
  return {
    id: o.id,
    label: o.label,
    algorithm: o.algorithm,
    private_key: o.privateKey,
    certificate: o.certificate ? b64(o.certificate) : null,
    chain: o.chain.map(b64),
  };
}

/**
 * The software chip of the embedded default: keys in soft-chip.json, signatures computed in the
 * signing worker pool (`runTask`), with the same contract as a PKCS#11 token (raw r‖s for EC).
 */
export function createSoftChip(path: string, runTask: RunTask): Chip {
  const file = readSoftChipFile(path);
  if (!file) throw new ChipError(`software chip file not found: ${path}; run \`localsign init --embedded\``);
  const records = new Map(file.keys.map((k) => [k.id, k]));
  const secrets = new Map(file.keys.filter((k) => k.algorithm !== 'rsa').map((k) => [k.id, scalarOf(k)]));
  let keys: Promise<ChipKey[]> | null = null;
  return {
    kind: 'soft',
    async listKeys() {
      // The public keys are computed on a signing thread (chip/soft-keys.ts): the event loop does no
      // curve work.
      keys ??= (runTask({ op: 'public-keys', keys: file.keys.map((k) => ({ algorithm: k.algorithm, privateKey: k.private_key })) }) as Promise<Uint8Array[]>).then((publicKeys) =>
        file.keys.map((k, i) => ({
          id: k.id,
          label: k.label,
          algorithm: k.algorithm,
          publicKey: publicKeys[i]!,
          certificate: k.certificate ? fromB64(k.certificate) : null,
          chain: k.chain.map(fromB64),
        })),
      );
      keys.catch(() => (keys = null));
      return keys;
    },
    // The signature is made in a worker and exists nowhere else until it is returned: a task
    // cancelled by `signal` never starts, or its worker is ended with it.
    async signDigest(keyId, digest, options = {}) {
      const rec = records.get(keyId);
      if (!rec) throw new ChipError(`the software chip has no key with id ${keyId}`);
      if (digest.length !== 32) throw new ChipError(`digest must be 32 bytes, got ${digest.length}`);
      const o = { signal: options.signal };
      const result =
        rec.algorithm === 'rsa'
          ? await runTask({ op: 'rsa-sign', keyPem: rec.private_key, digest }, o)
          : await runTask({ op: rec.algorithm === 'p256' ? 'p256-sign' : 'secp256k1-sign', secretKey: secrets.get(keyId)!, digest }, o);
      return result as Uint8Array;
    },
    async signRecoverable(keyId, digest, publicKey, options = {}) {
      const rec = records.get(keyId);
      if (!rec || rec.algorithm !== 'secp256k1') throw new ChipError(`the software chip has no secp256k1 key with id ${keyId}`);
      if (digest.length !== 32) throw new ChipError(`digest must be 32 bytes, got ${digest.length}`);
      return (await runTask({ op: 'secp256k1-sign-recover', secretKey: secrets.get(keyId)!, publicKey, digest }, { signal: options.signal })) as { r: bigint; s: bigint; yParity: 0 | 1 };
    },
    async close() {},
  };
}
