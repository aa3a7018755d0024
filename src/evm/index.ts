export { addressFromPublicKey, toChecksumAddress } from './address';
export { createRecoveryChecker, recoverAddress, type RecoveryChecker } from './recovery';
export {
  computeV,
  formatEvmSignature,
  normaliseLowS,
  SECP256K1_N,
  signDigestSecp256k1,
  type EvmSignatureParts,
  type EvmSignatureResult,
} from './signature';
export { MAX_CHAIN_ID, parseChainId, parseTxHash } from './tx-hash';

