/** Public face of the PAdES engine (CONTRACT "Result semantics", PAdES). */
export { checkPdf, type PdfInfo } from './pdf-check';
export { checkPdfForSigning, type SigningCheck } from './sign-check';
export { preparePades } from './prepare';
export { finishPades } from './finish';
export { verifyPades, verifyPrepared, type VerifiedSignature } from './verify';
export type { XrefKind } from './xref';
