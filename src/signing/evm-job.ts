import { SigningError } from '../errors/errors';
import { addressFromPublicKey, formatEvmSignature, normaliseLowS } from '../evm';
import type { Job } from './job-types';

/**
 * Blockchain signing (CONTRACT "Result semantics"): the chip signs the 32-byte hash, s is brought
 * to low-s (EIP-2), the recovery id is the one whose recovered key is the credential's, and the
 * address recovered must equal the credential's address before the request is DONE.
 */
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

export const runEvmJob: Job = async (entry, deps) => {
  const credential = deps.findCredential(entry.credential_key);
  if (!credential || credential.type !== 'evm' || !credential.public_key_hex || !credential.chip_key_id || !credential.address) {
    throw new SigningError(`credential ${entry.credential_key} is no longer an EVM credential in the cache`);
  }
  const txHash = String(entry.params.tx_hash);
  const digest = new Uint8Array(Buffer.from(txHash, 'hex'));
  const chainId = (entry.params.chain_id as number | null) ?? null;
  const publicKey = new Uint8Array(Buffer.from(credential.public_key_hex, 'hex'));
  // The recovery check proves the signature recovers to this public key; this proves the key is
  // the credential's address, so the address we answer is the one the chain will recover.
  if (addressOf(credential.public_key_hex, publicKey) !== credential.address) {
    throw new SigningError(`credential ${entry.credential_key}: its public key does not match its address ${credential.address}; run sync`);
  }
  const chip = await deps.getChip();
  let r: bigint;
  let s: bigint;
  let yParity: 0 | 1;
  if (chip.signRecoverable) {
    ({ r, s, yParity } = await chip.signRecoverable(credential.chip_key_id, digest, publicKey));
  } else {
    ({ r, s } = normaliseLowS(await chip.signDigest(credential.chip_key_id, digest)));
    yParity = (await deps.runTask({ op: 'evm-recover', publicKey, digest, r, s })) as 0 | 1;
  }
  return {
    result: { ...formatEvmSignature({ r, s, yParity, chainId, address: credential.address }) },
    digestHex: txHash,
  };
};
