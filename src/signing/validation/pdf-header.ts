import { PdfInputError } from '../../domain/errors';

/**
 * A document's first bytes (CONTRACT: a PDF starts with `%PDF-` at byte 0; junk before it is
 * refused, naming where the header is), and the 16-byte preview every refusal of a non-PDF shows.
 */

export const PDF_HEADER = '%PDF-';
/** CONTRACT: no more than 16 bytes of the document ever appear in a message. */
export const PREVIEW_BYTES = 16;

/** Printable ASCII (0x20..0x7e) as is, any other byte as `\xNN`: the CONTRACT's 16-byte preview. */
export function previewBytes(bytes: Uint8Array, max = PREVIEW_BYTES): string {
  let out = '';
  const end = Math.min(bytes.length, max);
  for (let i = 0; i < end; i++) {
    const b = bytes[i]!;
    out += b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return out;
}

export function notAPdf(preview: string, detail = '', cause?: unknown, field = 'pdf_base64'): PdfInputError {
  return new PdfInputError(
    `${field} does not contain a PDF: it starts with "${preview}" where "${PDF_HEADER}" was expected${detail}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * CONTRACT: a document must start with `%PDF-` at byte 0 (junk before it is refused, naming
 * where the header is); the message shows the 16-byte preview. `field` names where it came from
 * (`pdf_base64`, or `the request body` for the raw transport).
 */
export function requirePdfHeader(pdf: Uint8Array, field = 'pdf_base64'): void {
  if (startsWithAscii(pdf, PDF_HEADER)) return;
  const at = indexOfHeader(pdf);
  const detail = at > 0 ? ` (the header appears at byte ${at}; data before it is not repaired)` : '';
  if (pdf.length === 0) throw new PdfInputError(`${field} is empty; expected a PDF, whose bytes start with "${PDF_HEADER}"`);
  throw notAPdf(previewBytes(pdf), detail, undefined, field);
}

export function startsWithAscii(bytes: Uint8Array, ascii: string): boolean {
  if (bytes.length < ascii.length) return false;
  for (let i = 0; i < ascii.length; i++) if (bytes[i] !== ascii.charCodeAt(i)) return false;
  return true;
}

/**
 * Where `%PDF-` occurs within the first 1024 bytes, or -1: ISO 32000-1 §7.5.2 puts the header on
 * the first line, but many readers search 1024 bytes, so naming the offset explains a refusal.
 */
function indexOfHeader(bytes: Uint8Array): number {
  const end = Math.min(bytes.length, 1024) - PDF_HEADER.length;
  for (let i = 1; i <= end; i++) {
    if (bytes[i] === 0x25 && startsWithAscii(bytes.subarray(i, i + PDF_HEADER.length), PDF_HEADER)) return i;
  }
  return -1;
}
