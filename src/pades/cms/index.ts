export { checkCms, checkTimestampToken, digestWith, verifyCmsSignature } from './cms-check';
export { algorithmOfCertificate, assembleCms, buildSignedAttributes, ecdsaDerToRaw, ecdsaRawToDer, estimateCmsSize } from './cms';
export { signatureContentsAt } from './signature-contents';
export { signatureValueMatches } from './signature-value';
export { buildTimestampRequestForImprint, parseTimestampResponse } from './timestamp';
