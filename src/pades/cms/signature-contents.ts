/**
 * A signature dictionary's /Contents (ISO 32000-1 §12.8.1) holds the CMS as a hexadecimal string,
 * zero-padded to the size reserved for it. Read from the bytes alone, without the PDF engine: the
 * service's own process needs it for B-LT (the /VRI key is the hash of these bytes) and must not
 * load pdf-lib for it (PDF work is the PDF workers', under their limits).
 */

/** The /Contents string bytes of the signature whose hex digits start at `offset` (zero padding kept). */
export function signatureContentsAt(pdf: Uint8Array, offset: number, hexLength: number): Uint8Array {
  return new Uint8Array(Buffer.from(Buffer.from(pdf.subarray(offset, offset + hexLength)).toString('latin1'), 'hex'));
}
