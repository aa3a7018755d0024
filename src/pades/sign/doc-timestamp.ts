/**
 * The document timestamp of PAdES B-LTA (ETSI EN 319 142-1 §5.4.3, ISO 32000-2 §12.8.5): one more
 * incremental update with an invisible signature field whose dictionary is /Type /DocTimeStamp,
 * /SubFilter /ETSI.RFC3161, and whose /Contents is an RFC 3161 TimeStampToken over the SHA-256 of
 * its /ByteRange (the whole document with its DSS). Two steps, like a signature: prepare gives the
 * digest for the timestamp authority, finish writes the token into the placeholder.
 */
import { PDFName } from 'pdf-lib';
import { PdfReader } from '../pdf';
import { newObjectsAfter } from '../pdf';
import { byteRangeFor, byteRangePlaceholder, contentsPlaceholder, digestByteRange, embedContents, locateSignatureSlots, patchByteRange, type ByteRange } from '../pdf';
import { writeIncrementalUpdate } from '../pdf';
import { addSignatureField, findPage } from '../pdf';

/** Room for a token with the TSA's chain (the same bound B-T reserves inside a CMS). */
const TOKEN_RESERVE_BYTES = 12 * 1024;

export interface PreparedDocTimestamp {
  pdf: Uint8Array;
  contentsOffset: number;
  contentsHexLength: number;
  byteRange: ByteRange;
  /** SHA-256 over the ByteRange: the timestamp request's message imprint. */
  digest: Uint8Array;
}

export function prepareDocTimestamp(pdf: Uint8Array, reserveBytes = TOKEN_RESERVE_BYTES): PreparedDocTimestamp {
  const reader = new PdfReader(pdf);
  // No DocMDP refusal here: a document timestamp (like the DSS) is an LTA update that even P=1
  // permits (ETSI EN 319 142-1 §5.4; pyHanko's ModificationLevel.LTA_UPDATES).
  const { ref: catalogRef, dict: catalog } = reader.catalog();
  const { context, created } = newObjectsAfter(reader);
  const contentsHexLength = 2 * reserveBytes;
  // ISO 32000-2 Table 255: no /M, /Name or /Reason: the token itself carries the time and the TSA.
  const sig = context.obj({ Type: 'DocTimeStamp', Filter: 'Adobe.PPKLite', SubFilter: 'ETSI.RFC3161' });
  sig.set(PDFName.of('ByteRange'), byteRangePlaceholder());
  sig.set(PDFName.of('Contents'), contentsPlaceholder(contentsHexLength));
  const signatureRef = context.register(sig);
  // An invisible widget (zero /Rect, empty appearance, §12.7.4.5) on the first page.
  const appearanceRef = context.register(context.formXObject([]));
  const page = findPage(reader, catalog, 'first');
  const { rewrites } = addSignatureField({
    reader, context, catalogRef, catalog, page, rect: [0, 0, 0, 0], appearanceRef, signatureRef,
  });
  const update = writeIncrementalUpdate(pdf, reader.xref, [...rewrites, ...created()]);
  const out = update.bytes;
  const at = update.offsets.get(signatureRef.objectNumber)!;
  const slots = locateSignatureSlots(out, at, Math.min(out.length, at + contentsHexLength + 4096));
  const byteRange = byteRangeFor(slots, out.length);
  patchByteRange(out, slots.byteRangeOffset, byteRange);
  return { pdf: out, contentsOffset: slots.contentsOffset, contentsHexLength: slots.contentsHexLength, byteRange, digest: digestByteRange(out, byteRange) };
}

/** Writes the DER TimeStampToken into the placeholder; the prepared bytes are copied, not changed. */
export function finishDocTimestamp(prepared: PreparedDocTimestamp, token: Uint8Array): Uint8Array {
  const out = prepared.pdf.slice();
  embedContents(out, prepared.contentsOffset, prepared.contentsHexLength, token);
  return out;
}
