import { SigningError } from '../../domain/errors';
import { signOnPlatform } from '../../platform/remote';
import type { EngineDefinition } from '../engine';

/**
 * Engine "platform" (PLATFORM.md "Remote signing"): the digest goes to the platform of the current
 * pairing with the label the request's kind gives, the answer comes back by push or poll
 * (platform/remote/signer.ts), and the kind checks it against the credential before it is used.
 */
export const platformEngine: EngineDefinition = {
  name: 'platform',
  signer: 'the platform',
  summary: 'the remote platform signs',
  remote: true,
  onChip: false,
  make: (deps) => ({
    recovers: false,
    async sign(request, signal) {
      if (!request.label) throw new SigningError(`the platform does not sign this kind of request (credential ${request.credential.credential_key})`);
      return signOnPlatform(deps.platform, {
        requestId: request.requestId,
        credential: request.credential,
        digest: request.digest,
        ecdsa: request.algorithm.startsWith('ecdsa-'),
        label: request.label,
        resumed: request.resumed,
        signal,
      });
    },
    forget: (requestId) => deps.platform.hub.forget(requestId),
  }),
};
