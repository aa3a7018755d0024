import { signEvmOnPlatform, signPadesOnPlatform, type PlatformSigningDeps } from '../../platform/remote';
import type { Signature, SignatureRequest, SigningEngine } from '../engine';

/**
 * Engine "platform" (PLATFORM.md "Remote signing"): the digest goes to the platform of the current
 * pairing, the answer comes back by push or poll, and is checked against the credential before
 * it is used (platform/remote/signer.ts).
 */
export function platformEngine(deps: PlatformSigningDeps): SigningEngine {
  return {
    name: 'platform',
    remote: true,
    async sign<R extends SignatureRequest>(request: R, signal: AbortSignal): Promise<Signature<R>> {
      const common = { requestId: request.requestId, credential: request.credential, digest: request.digest, resumed: request.resumed, signal };
      if (request.form === 'cms') return (await signPadesOnPlatform(deps, { ...common, signedAttributes: request.signedAttributes })) as Signature<R>;
      return (await signEvmOnPlatform(deps, { ...common, chainId: request.chainId })) as Signature<R>;
    },
    forget: (requestId) => deps.hub.forget(requestId),
  };
}
