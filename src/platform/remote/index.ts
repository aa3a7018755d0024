export { RemoteCatalog } from './catalog';
export { RemotePlatform } from './client';
export { pairRemote, readPlatformCa } from './pairing';
export { receivePush } from './receive-push';
export { PlatformResultHub } from './results';
export { signEvmOnPlatform, signPadesOnPlatform, type PlatformSigningDeps } from './signer';
export { PairingSession } from './session';
