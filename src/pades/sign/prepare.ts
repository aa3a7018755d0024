/**
 * First half of the interrupted signing flow (pyHanko's pdf_signer model): build the incremental
 * update with the signature field and placeholders, patch /ByteRange, digest the two pieces and
 * hand out the DER signed attributes and their SHA-256 for the chip or the platform to sign.
 * Pure: the signing time comes in, nothing is read from a clock, disk or network.
 */
import { createHash } from 'node:crypto';
import { PDFDocument, PDFRef } from 'pdf-lib';
import { InvalidInputError, SigningError } from '../../domain/errors';
import { PdfReader } from '../pdf';
import { byteRangeFor, digestByteRange, locateSignatureSlots, patchByteRange } from '../pdf';
import { algorithmOfCertificate, buildSignedAttributes, estimateCmsSize } from '../cms';
import { incrementalUpdateTail, type UpdateObject } from '../pdf';
import { inspectPdf } from '../pdf';
import { placeSignature } from '../stamp';
import { addSignatureField, buildSignatureDictionary, certifyCatalog, fillSignatureField, pageNumberOf, refuseCertifyingSigned } from '../pdf';
import { addSignaturePage } from '../stamp';
import { drawStamp } from '../stamp';
import type { PadesPrepareInput, PreparedPades, StampLocation } from './types';
import type { StampSpec } from '../../domain/pades';

function stampRect(stamp: StampSpec): [number, number, number, number] {
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    if (typeof stamp[key] !== 'number' || !Number.isFinite(stamp[key])) {
      throw new InvalidInputError(`stamp.${key} must be a finite number`);
    }
  }
  return [stamp.x, stamp.y, stamp.x + stamp.width, stamp.y + stamp.height];
}

/** `reader`: a reader of `input.pdf` that has already read part of it (sign-check.ts checkAndPreparePades). */
export async function preparePades(input: PadesPrepareInput, reader?: PdfReader): Promise<PreparedPades> {
  const { tail, ...prepared } = await preparePadesParts(input, reader);
  const pdf = new Uint8Array(input.pdf.length + tail.length);
  pdf.set(input.pdf, 0);
  pdf.set(tail, input.pdf.length);
  return { pdf, ...prepared };
}

/** A prepared document as its two parts: the input as it is (`input.pdf`), then `tail`, the update. */
export type PreparedParts = Omit<PreparedPades, 'pdf'> & { tail: Uint8Array };

/**
 * preparePades without joining the input and its update: a PDF worker writes a large document's two
 * parts one after the other into the prepared file, and never holds a copy of the input (the 100 MB
 * path). The /ByteRange and both placeholders are in the update; the digest runs over both.
 */
export async function preparePadesParts(input: PadesPrepareInput, reader: PdfReader = new PdfReader(input.pdf)): Promise<PreparedParts> {
  const chain = input.certificateChain;
  const signer = chain[0];
  if (!signer) throw new SigningError('certificateChain is empty: the signer certificate must come first');
  const algorithm = algorithmOfCertificate(signer);
  const info = inspectPdf(reader);
  if (input.certify) refuseCertifyingSigned(info.signatureCount);

  // New objects are allocated in a scratch document's context, numbered from the input's /Size,
  // so the stamp module can register its font, image and form there (it never saves anything).
  const doc = await PDFDocument.create({ updateMetadata: false });
  const context = doc.context;
  // Some writers list objects at or above /Size; numbering past every listed one avoids a clash.
  let highest = reader.xref.size - 1;
  for (const num of reader.xref.entries.keys()) if (num > highest) highest = num;
  context.largestObjectNumber = Math.max(context.largestObjectNumber, highest);
  const firstNew = context.largestObjectNumber + 1;

  // An empty signature field of the form takes the signature (and the stamp, at its size and
  // place); otherwise a new field goes where the design says, moved to free space when the
  // design's box would cover the page's content (stamp-placement.ts).
  const placement = placeSignature(reader, info.catalog, input.stamp ?? null, info.docMdpPermission, input.placement ?? null);
  const empty = placement.kind === 'field' ? placement.field : null;
  let rect: [number, number, number, number] = [0, 0, 0, 0];
  let appearanceRef: PDFRef;
  let stamp = input.stamp ?? null;
  const position = placement.kind === 'page' ? placement.stamp : null;
  if (empty && stamp) {
    const [x1, y1, x2, y2] = empty.rect;
    stamp = { ...stamp, x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
  } else if (position && stamp) {
    const { x1, y1, x2, y2 } = position.rect;
    stamp = { ...stamp, x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
  }
  let page = placement.kind === 'page' ? placement.page : null;
  const pageRewrites: UpdateObject[] = [];
  if (position?.kind === 'new_page') {
    const added = addSignaturePage({ reader, context, catalog: info.catalog, mediaBox: position.mediaBox, cropBox: position.cropBox, rotate: position.rotate });
    page = added.page;
    pageRewrites.push(...added.rewrites);
  }
  // The placement's warnings, then the stamp's own (a line cut to fit).
  const warnings = [...(position?.warnings ?? [])];
  let stampAt: StampLocation | null = null;
  if (stamp) {
    rect = stampRect(stamp);
    stampAt = {
      page: empty ? pageNumberOf(reader, info.catalog, empty.pageRef) : page!.index + 1,
      pageCount: info.pageCount + (position?.kind === 'new_page' ? 1 : 0),
      rect: rect.map((n) => Math.round(n * 100) / 100) as StampLocation['rect'],
    };
    const drawn = await drawStamp(doc, stamp);
    appearanceRef = drawn.form;
    warnings.push(...drawn.warnings);
  } else {
    // An invisible signature still gets an appearance: an empty form with BBox [0 0 0 0]
    // (PDF/A and PAdES validators expect /AP /N on every widget, ISO 32000-1 §12.5.5).
    appearanceRef = context.register(context.formXObject([]));
  }

  const contentsHexLength = 2 * estimateCmsSize(chain, algorithm, input.reserveTimestamp === true);
  const signatureRef = context.register(
    buildSignatureDictionary(context, {
      signingTime: input.signingTime,
      reason: input.reason,
      location: input.location,
      signerName: input.signerName,
      contentsHexLength,
      certify: input.certify,
    }),
  );
  const { rewrites } = empty
    ? fillSignatureField({ reader, context, catalogRef: info.catalogRef, catalog: info.catalog, target: empty, appearanceRef, signatureRef })
    : addSignatureField({ reader, context, catalogRef: info.catalogRef, catalog: info.catalog, page: page!, rect, appearanceRef, signatureRef });
  if (input.certify) certifyCatalog({ reader, context, catalogRef: info.catalogRef, catalog: info.catalog, signatureRef, rewrites });
  const created: UpdateObject[] = context
    .enumerateIndirectObjects()
    .filter(([ref]) => ref.objectNumber >= firstNew)
    .map(([ref, object]) => ({ ref, object }));
  // A signature page is new: it is written once, with the /Annots addSignatureField gave it.
  const changed = [...pageRewrites, ...rewrites].filter((r) => r.ref.objectNumber < firstNew);
  const { tail, offsets } = incrementalUpdateTail(input.pdf, reader.xref, [...changed, ...created]);

  // The signature dictionary is a new object, so it lies in the tail: its offsets there are the
  // file's less the input's length.
  const head = input.pdf.length;
  const sigOffset = offsets.get(signatureRef.objectNumber)! - head;
  const inTail = locateSignatureSlots(tail, sigOffset, Math.min(tail.length, sigOffset + contentsHexLength + 4096));
  const slots = { byteRangeOffset: inTail.byteRangeOffset + head, contentsOffset: inTail.contentsOffset + head, contentsHexLength: inTail.contentsHexLength };
  const byteRange = byteRangeFor(slots, head + tail.length);
  patchByteRange(tail, inTail.byteRangeOffset, byteRange);
  const documentDigest = digestByteRange([input.pdf, tail], byteRange);
  const signedAttributes = buildSignedAttributes({ documentDigest, signerCertificate: signer });
  return {
    tail,
    contentsOffset: slots.contentsOffset,
    contentsHexLength: slots.contentsHexLength,
    byteRange,
    signedAttributes,
    digest: new Uint8Array(createHash('sha256').update(signedAttributes).digest()),
    algorithm,
    certificateChain: chain,
    warnings,
    stampAt,
  };
}
