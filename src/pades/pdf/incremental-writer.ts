/**
 * Appends one incremental update (ISO 32000-1 §7.5.6) to the input bytes, which are never
 * re-serialised: they are an exact prefix of the output (CONTRACT: every signature already in the
 * PDF stays valid). The new cross-reference section is of the same kind as the last one: a table
 * after a table or a hybrid file (§7.5.4), a stream after a stream (§7.5.8); /XRefStm is never
 * copied. The trailer keeps /Root, /Info, /Encrypt and ID[0], and gets a new ID[1] and /Prev
 * (§14.4: ID[1] changes with every update).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFArray, PDFContext, PDFDict, PDFHexString, PDFName, PDFNumber, PDFObject, PDFRawStream, PDFRef } from 'pdf-lib';
import type { XrefChain } from './xref';

export interface UpdateObject {
  ref: PDFRef;
  object: PDFObject;
}

export interface IncrementalUpdate {
  /** Input bytes (plus an EOL when they lacked one) followed by the update. */
  bytes: Uint8Array;
  /** Absolute byte offset of each written object, by object number. */
  offsets: Map<number, number>;
}

const encoder = new TextEncoder();

function serialiseObject(ref: PDFRef, object: PDFObject): Uint8Array {
  const head = encoder.encode(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
  const tail = encoder.encode('\nendobj\n');
  const out = new Uint8Array(head.length + object.sizeInBytes() + tail.length);
  out.set(head, 0);
  const n = object.copyBytesInto(out, head.length);
  out.set(tail, head.length + n);
  return out;
}

/** Groups sorted object numbers into [first, count] subsections (§7.5.4, §7.5.8.2 /Index). */
function subsections(numbers: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const n of numbers) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1] === n) last[1]++;
    else out.push([n, 1]);
  }
  return out;
}

function trailerEntries(xref: XrefChain, context: PDFContext, idSeed: Uint8Array, prev: number): Map<PDFName, PDFObject> {
  const entries = new Map<PDFName, PDFObject>();
  entries.set(PDFName.of('Root'), xref.root as PDFObject);
  if (xref.info) entries.set(PDFName.of('Info'), xref.info as PDFObject);
  if (xref.encrypt) entries.set(PDFName.of('Encrypt'), xref.encrypt as PDFObject);
  const newId = PDFHexString.of(Buffer.from(createHash('sha256').update(idSeed).digest().subarray(0, 16)).toString('hex'));
  const firstId = xref.id?.get(0);
  const id = PDFArray.withContext(context);
  id.push(firstId ?? newId);
  id.push(newId);
  entries.set(PDFName.of('ID'), id);
  entries.set(PDFName.of('Prev'), PDFNumber.of(prev));
  return entries;
}

function tableSection(
  rows: { num: number; gen: number; offset: number }[],
  trailer: PDFDict,
  xrefOffset: number,
): Uint8Array {
  const byNum = new Map(rows.map((r) => [r.num, r]));
  let text = 'xref\n';
  for (const [first, count] of subsections([...byNum.keys()].sort((a, b) => a - b))) {
    text += `${first} ${count}\n`;
    for (let n = first; n < first + count; n++) {
      const r = byNum.get(n)!;
      // §7.5.4: each entry is exactly 20 bytes, ending in a two-character EOL.
      text += `${String(r.offset).padStart(10, '0')} ${String(r.gen).padStart(5, '0')} n\r\n`;
    }
  }
  // latin1, not UTF-8: a literal-string /ID may hold bytes 0x80-0xFF, which must stay single bytes.
  return new Uint8Array(Buffer.from(`${text}trailer\n${trailer.toString()}\nstartxref\n${xrefOffset}\n%%EOF\n`, 'latin1'));
}

function streamSection(
  rows: { num: number; gen: number; offset: number }[],
  trailer: PDFDict,
  ref: PDFRef,
  xrefOffset: number,
): Uint8Array {
  // The stream lists itself (§7.5.8.3); widths of /W [1 w 2] must hold the largest offset.
  const all = [...rows, { num: ref.objectNumber, gen: 0, offset: xrefOffset }].sort((a, b) => a.num - b.num);
  let w = 1;
  while (2 ** (8 * w) <= xrefOffset) w++;
  const data = new Uint8Array(all.length * (3 + w));
  all.forEach((r, i) => {
    const at = i * (3 + w);
    data[at] = 1;
    for (let b = 0; b < w; b++) data[at + 1 + b] = Math.floor(r.offset / 2 ** (8 * (w - 1 - b))) & 0xff;
    data[at + 1 + w] = (r.gen >> 8) & 0xff;
    data[at + 2 + w] = r.gen & 0xff;
  });
  const index = subsections(all.map((r) => r.num)).flat();
  trailer.set(PDFName.of('Type'), PDFName.of('XRef'));
  trailer.set(PDFName.of('W'), trailer.context.obj([1, w, 2]));
  trailer.set(PDFName.of('Index'), trailer.context.obj(index));
  trailer.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
  const stream = PDFRawStream.of(trailer, new Uint8Array(deflateSync(data)));
  const body = serialiseObject(ref, stream);
  return new Uint8Array([...body, ...encoder.encode(`startxref\n${xrefOffset}\n%%EOF\n`)]);
}

/** The update alone: the bytes that follow the input, and the objects' offsets in the whole file. */
export interface UpdateTail {
  tail: Uint8Array;
  offsets: Map<number, number>;
}

/**
 * Writes `objects` (new ones and whole rewrites of modified ones, same number and generation)
 * after `pdf` with a cross-reference section chained to the input's by /Prev.
 */
export function writeIncrementalUpdate(pdf: Uint8Array, xref: XrefChain, objects: UpdateObject[]): IncrementalUpdate {
  const { tail, offsets } = incrementalUpdateTail(pdf, xref, objects);
  const out = new Uint8Array(pdf.length + tail.length);
  out.set(pdf, 0);
  out.set(tail, pdf.length);
  return { bytes: out, offsets };
}

/**
 * What writeIncrementalUpdate appends to `pdf`, without joining the two: a large document's
 * update is written after it in its file (so the 100 MB path never holds the input and a copy).
 */
export function incrementalUpdateTail(pdf: Uint8Array, xref: XrefChain, objects: UpdateObject[]): UpdateTail {
  const last = pdf[pdf.length - 1];
  // §7.5.5: the update starts on a new line; an input ending without EOL gets one (never altered).
  const eol = last === 0x0a || last === 0x0d ? 0 : 1;
  const base = pdf.length + eol;
  const bodies = objects.map((o) => serialiseObject(o.ref, o.object));
  const offsets = new Map<number, number>();
  const rows: { num: number; gen: number; offset: number }[] = [];
  let at = base;
  objects.forEach((o, i) => {
    offsets.set(o.ref.objectNumber, at);
    rows.push({ num: o.ref.objectNumber, gen: o.ref.generationNumber, offset: at });
    at += bodies[i]!.length;
  });
  const maxNum = Math.max(xref.size - 1, ...objects.map((o) => o.ref.objectNumber));
  const context = PDFContext.create();
  const seed = createHash('sha256');
  for (const b of bodies) seed.update(b);
  const trailer = context.obj({}) as PDFDict;
  const asStream = xref.lastKind === 'stream';
  const xrefRef = PDFRef.of(maxNum + 1, 0);
  trailer.set(PDFName.of('Size'), PDFNumber.of(asStream ? maxNum + 2 : maxNum + 1));
  for (const [k, v] of trailerEntries(xref, context, new Uint8Array(seed.digest()), xref.startxref)) trailer.set(k, v);
  const section = asStream ? streamSection(rows, trailer, xrefRef, at) : tableSection(rows, trailer, at);
  if (asStream) offsets.set(xrefRef.objectNumber, at);
  const tail = new Uint8Array(at - pdf.length + section.length);
  if (eol) tail[0] = 0x0a;
  let p = eol;
  for (const b of bodies) {
    tail.set(b, p);
    p += b.length;
  }
  tail.set(section, p);
  return { tail, offsets };
}
