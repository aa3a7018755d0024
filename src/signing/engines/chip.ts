import { SigningError } from '../../domain/errors';
import { addressFromPublicKey, normaliseLowS } from '../../evm';
import { algorithmOfCertificate, ecdsaRawToDer } from '../../pades/cms';
import type { Chip } from '../../chip/types';
import type { SignTask, SignTaskResult } from '../sign-tasks';
import type { Signature, SignatureRequest, SigningEngine } from '../engine';

export interface ChipEngineDeps {
  getChip: () => Promise<Chip>;
  runTask: (task: SignTask, o?: { signal?: AbortSignal }) => Promise<SignTaskResult>;
}

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

/** Engine "chip": the key on this machine's token or software chip signs the digest. */
export function chipEngine(deps: ChipEngineDeps): SigningEngine {
  return {
    name: 'chip',
    remote: false,
    async sign<R extends SignatureRequest>(request: R, signal: AbortSignal): Promise<Signature<R>> {
      const { credential } = request;
      if (!credential.chip_key_id) throw new SigningError(`credential ${credential.credential_key} has no key on this machine's chip; run sync`);
      const keyId = credential.chip_key_id;
      if (request.form === 'cms') {
        const chip = await deps.getChip();
        signal.throwIfAborted(); // the request ended while the chip opened: sign nothing
        const raw = await chip.signDigest(keyId, request.digest, { pin: request.pin, caller: request.caller, signal, onSigning: request.onSigning });
        // CKM_ECDSA gives r‖s; a CMS SignerInfo carries ECDSA-Sig-Value (RFC 5753 §7.2).
        const certificate = Buffer.from(credential.certificate_chain![0]!, 'base64');
        return (algorithmOfCertificate(certificate) === 'p256' ? ecdsaRawToDer(raw) : raw) as Signature<R>;
      }
      if (!credential.public_key_hex || !credential.address) throw new SigningError(`credential ${credential.credential_key} has no key on this machine's chip; run sync`);
      const publicKey = new Uint8Array(Buffer.from(credential.public_key_hex, 'hex'));
      // The recovery check proves the signature recovers to this public key; this proves the key is
      // the credential's address, so the address we answer is the one the chain will recover.
      if (addressOf(credential.public_key_hex, publicKey) !== credential.address) {
        throw new SigningError(`credential ${credential.credential_key}: its public key does not match its address ${credential.address}; run sync`);
      }
      const chip = await deps.getChip();
      signal.throwIfAborted(); // the request ended while the chip opened: sign nothing
      if (chip.signRecoverable && !request.pin) {
        return (await chip.signRecoverable(keyId, request.digest, publicKey, { signal })) as Signature<R>;
      }
      const { r, s } = normaliseLowS(await chip.signDigest(keyId, request.digest, { pin: request.pin, caller: request.caller, signal, onSigning: request.onSigning }));
      const yParity = (await deps.runTask({ op: 'evm-recover', publicKey, digest: request.digest, r, s })) as 0 | 1;
      return { r, s, yParity } as Signature<R>;
    },
  };
}
