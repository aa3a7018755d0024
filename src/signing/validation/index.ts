export { describeReport, loadTrustAnchors, notAPdfReport, verifyPdf, type VerifyOptions, type WireReport } from './verify-pdf';
export { PDF_HEADER, PREVIEW_BYTES, notAPdf, previewBytes, requirePdfHeader, startsWithAscii } from './pdf-header';
