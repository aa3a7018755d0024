import { SigningError } from '../../domain/errors';
import type { EngineDefinition } from '../engine';

/** r‖s, 32 bytes each, big-endian (the raw ECDSA form of the engine contract, as CKM_ECDSA gives it). */
function rawRS(r: bigint, s: bigint): Uint8Array {
  return Buffer.from(r.toString(16).padStart(64, '0') + s.toString(16).padStart(64, '0'), 'hex');
}

/**
 * Engine "chip": the key on this machine's token or software chip signs the digest (the chip
 * knows the key's algorithm: chip/types.ts `signDigest`). The software chip can also give the
 * recovery id checked against the key in the same signing-thread task (`signRecoverable`),
 * which the kind asks for with `recoverTo`; a PKCS#11 token, or a request with its own PIN,
 * signs plainly and the kind finds the recovery id.
 */
export const chipEngine: EngineDefinition = {
  name: 'chip',
  signer: 'the chip',
  summary: "this machine's signing chip",
  remote: false,
  onChip: true,
  make: (deps) => ({
    recovers: true,
    async sign(request, signal) {
      const { credential } = request;
      if (!credential.chip_key_id) throw new SigningError(`credential ${credential.credential_key} has no key on this machine's chip; run sync`);
      const keyId = credential.chip_key_id;
      const chip = await deps.getChip();
      signal.throwIfAborted(); // the request ended while the chip opened: sign nothing
      if (request.recoverTo && chip.signRecoverable && !request.pin) {
        const { r, s, yParity } = await chip.signRecoverable(keyId, request.digest, request.recoverTo, { signal });
        return { signature: rawRS(r, s), recoveryId: yParity, recoveryChecked: true };
      }
      return { signature: await chip.signDigest(keyId, request.digest, { pin: request.pin, caller: request.caller, signal, onSigning: request.onSigning }) };
    },
  }),
};
