/**
 * The design's `image_png_base64` (PLATFORM.md) turned into PNG bytes, refused early with a
 * message naming the field rather than failing deep inside the PNG decoder.
 */
import { InvalidInputError } from '../../domain/errors';

/** PNG signature (ISO/IEC 15948 §5.2, RFC 2083 §3.1). */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Standard base64 alphabet with padding (RFC 4648 §4); line breaks are tolerated and removed. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeStampPng(base64: string): Uint8Array {
  const field = 'stamp.image_png_base64';
  if (typeof base64 !== 'string') throw new InvalidInputError(`${field} must be a base64 string`);
  const compact = base64.replace(/[\r\n]/g, '');
  if (compact.length === 0 || !BASE64.test(compact)) {
    throw new InvalidInputError(`${field} must be standard base64 (RFC 4648 §4)`);
  }
  const bytes = new Uint8Array(Buffer.from(compact, 'base64'));
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) {
    throw new InvalidInputError(`${field} is not a PNG image (no PNG signature)`);
  }
  return bytes;
}
