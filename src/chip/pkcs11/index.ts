export { createPkcs11Chip, type Pkcs11ChipOptions } from './pkcs11-chip';
export { Pkcs11CallError, ckrName } from './return-codes';
export { TokenNotPresentError } from './token-discovery';
