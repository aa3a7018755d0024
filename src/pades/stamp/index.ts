export { renderDesignPreview } from './design-preview';
export { placeSignature, stampDecisionOf, type PlacedStamp, type StampDecision } from './placement';
export { addSignaturePage } from './signature-page';
export { decodeStampPng } from './stamp-png';
export { drawStamp } from './stamp';
