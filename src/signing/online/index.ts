export { collectValidationData, tokenCertificates, type RevocationSources } from './revocation-client';
export { fetchTimestampToken, fetchTimestampTokenForImprint } from './tsa-client';
