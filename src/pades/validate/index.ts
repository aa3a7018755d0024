export { validatePdf, type SignatureReport, type ValidateOptions, type ValidationReport } from './validate';
