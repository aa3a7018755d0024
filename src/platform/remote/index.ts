export { RemoteCatalog } from './catalog';
export { RemotePlatform } from './client';
export { pairRemote, readPlatformCa } from './pairing';
export { receivePush } from './receive-push';
export { PlatformResultHub } from './results';
export { signOnPlatform, type DigestLabel, type PlatformSigningDeps } from './signer';
export type { CatalogueEntry, CatalogueRules, CredentialTypeRules, EngineRules } from './wire';
export { PairingSession } from './session';
