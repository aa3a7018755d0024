export { createPkcs11Chip, type Pkcs11ChipOptions, type Pkcs11PinSource } from './pkcs11-chip';
export { MultiTokenChip, tokenKeyId } from './multi-token-chip';
export { presentTokenLabels } from './token-discovery';
export { Pkcs11CallError, ckrName } from './return-codes';
export { TokenNotPresentError } from './token-discovery';

