import { chipPinOf } from './chip-pin';
import { SigningError } from '../errors/errors';
import { addressFromPublicKey, formatEvmSignature, normaliseLowS } from '../evm';
import type { Job } from './job-types';
import { signEvmOnPlatform } from './platform-signer';

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
 * Blockchain signing (CONTRACT "Result semantics"): the chip (or the platform) signs the 32-byte
 * hash, s is brought to low-s (EIP-2), the recovery id is the one whose recovered key is the
 * credential's, and the address recovered must equal the credential's address before DONE.
 */
export const runEvmJob: Job<'blockchain'> = async (entry, deps, run) => {
  const credential = run.accepted?.credential ?? deps.findCredential(entry.credential_key);
  if (!credential || credential.type !== 'evm' || !credential.address) {
    throw new SigningError(`credential ${entry.credential_key} is no longer an EVM credential in the cache`);
  }
  const txHash = entry.params.tx_hash;
  const digest = new Uint8Array(Buffer.from(txHash, 'hex'));
  const chainId = entry.params.chain_id;
  let r: bigint;
  let s: bigint;
  let yParity: 0 | 1;
  if (entry.params.engine === 'platform') {
    ({ r, s, yParity } = await signEvmOnPlatform(deps.platform, { requestId: entry.request_id, credential, digest, chainId, resumed: run.resumed, signal: run.signal }));
  } else {
    if (!credential.public_key_hex || !credential.chip_key_id) throw new SigningError(`credential ${entry.credential_key} has no key on this machine's chip; run sync`);
    const publicKey = new Uint8Array(Buffer.from(credential.public_key_hex, 'hex'));
    // The recovery check proves the signature recovers to this public key; this proves the key is
    // the credential's address, so the address we answer is the one the chain will recover.
    if (addressOf(credential.public_key_hex, publicKey) !== credential.address) {
      throw new SigningError(`credential ${entry.credential_key}: its public key does not match its address ${credential.address}; run sync`);
    }
    const pin = chipPinOf(entry, run);
    const chip = await deps.getChip();
    run.signal.throwIfAborted(); // the request ended while the chip opened: sign nothing
    if (chip.signRecoverable && !pin) {
      ({ r, s, yParity } = await chip.signRecoverable(credential.chip_key_id, digest, publicKey));
    } else {
      ({ r, s } = normaliseLowS(await chip.signDigest(credential.chip_key_id, digest, { pin, signal: run.signal })));
      yParity = (await deps.runTask({ op: 'evm-recover', publicKey, digest, r, s })) as 0 | 1;
    }
  }
  return {
    result: { ...formatEvmSignature({ r, s, yParity, chainId, address: credential.address }) },
    digestHex: txHash,
  };
};
