import { SigningError } from '../../domain/errors';
import { formatEvmSignature } from '../../evm';
import { chipPinOf } from '../chip-pin';
import type { Job } from '../job-types';
import type { SignatureKind } from '../kind';

/**
 * Blockchain signing (CONTRACT "Result semantics"): the engine signs the 32-byte hash, s is brought
 * to low-s (EIP-2), the recovery id is the one whose recovered key is the credential's, and the
 * address recovered must equal the credential's address before DONE (each engine checks its own
 * answer: engines/chip.ts, platform/remote/signer.ts).
 */
export const runEvmJob: Job<'blockchain'> = async (entry, deps, run) => {
  const credential = run.accepted?.credential ?? deps.findCredential(entry.credentialKey);
  if (!credential || credential.type !== 'evm' || !credential.address) {
    throw new SigningError(`credential ${entry.credentialKey} is no longer an EVM credential in the cache`);
  }
  const txHash = entry.params.txHash;
  const chainId = entry.params.chainId;
  const { r, s, yParity } = await run.engine.sign(
    {
      form: 'evm',
      requestId: entry.requestId,
      credential,
      digest: new Uint8Array(Buffer.from(txHash, 'hex')),
      chainId,
      resumed: run.resumed,
      pin: chipPinOf(entry, run),
      caller: entry.wrapperKey ?? undefined,
      onSigning: () => run.signing(txHash),
    },
    run.signal,
  );
  run.signed(txHash);
  return {
    result: { ...formatEvmSignature({ r, s, yParity, chainId, address: credential.address }) },
    digestHex: txHash,
  };
};

export const evmKind: SignatureKind<'blockchain'> = {
  run: runEvmJob,
  holdsDocument: false,
  // The hash to sign is the request itself: every record of it names the hash.
  auditDigest: (entry) => entry.params.txHash,
  digestOut: async () => true,
};
