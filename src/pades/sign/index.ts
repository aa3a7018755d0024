export { finishDocTimestamp, prepareDocTimestamp, type PreparedDocTimestamp } from './doc-timestamp';
export { addDss, vriKey, type ValidationData, type VriEntry } from './dss';
export { finishPades } from './finish';
export { preparePades, preparePadesParts, type PreparedParts } from './prepare';
export { checkAndPreparePades, checkPdfForSigning, type SigningCheck } from './sign-check';
export { type PadesPrepareInput, type PreparedPades, type StampLocation } from './types';
export { verifyPades } from './verify';
