/**
 * Hand-written PDF revisions for the change-analysis tests (issue 17): a first revision from
 * object bodies, and incremental updates (ISO 32000-1 §7.5.6) appended as text with a classic
 * cross-reference table (§7.5.4) whose /Prev is the previous startxref, so every byte before them
 * stays as it was (a signature over them stays intact). An update may also list entries that
 * point anywhere (`redirect`) or free objects (`free`): what an attacker's update does. Test-only.
 */
import { PDFArray, PDFDict, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { newObjectsAfter } from '../../src/pades/pdf/new-objects';
import { PdfReader } from '../../src/pades/pdf/pdf-reader';
import { writeIncrementalUpdate } from '../../src/pades/pdf/incremental-writer';
import { findPage } from '../../src/pades/pdf/signature-field';

/** An object body: the text between `N 0 obj` and `endobj`, or a stream from its dictionary text and data. */
export type Body = string | { dict: string; data: Buffer | string };

function serialise(num: number, body: Body): Buffer {
  if (typeof body === 'string') return Buffer.from(`${num} 0 obj\n${body}\nendobj\n`, 'latin1');
  const data = typeof body.data === 'string' ? Buffer.from(body.data, 'latin1') : body.data;
  return Buffer.concat([Buffer.from(`${num} 0 obj\n<< ${body.dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n', 'latin1')]);
}

function table(entries: Map<number, string>): string {
  const nums = [...entries.keys()].sort((a, b) => a - b);
  let out = 'xref\n';
  for (let i = 0; i < nums.length; ) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
    out += `${nums[i]} ${j - i + 1}\n`;
    for (let k = i; k <= j; k++) out += entries.get(nums[k]!)!;
    i = j + 1;
  }
  return out;
}

const inUse = (offset: number) => `${String(offset).padStart(10, '0')} 00000 n\r\n`;

/** A one-revision PDF: `objects` in order, a table, and a trailer with `trailer` (e.g. `/Root 1 0 R`) and /Size. */
export function firstRevision(objects: [number, Body][], trailer: string): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let pos = parts[0]!.length;
  const entries = new Map<number, string>([[0, '0000000000 65535 f\r\n']]);
  for (const [num, body] of objects) {
    const bytes = serialise(num, body);
    entries.set(num, inUse(pos));
    parts.push(bytes);
    pos += bytes.length;
  }
  const size = Math.max(...entries.keys()) + 1;
  parts.push(Buffer.from(`${table(entries)}trailer\n<< /Size ${size} ${trailer} >>\nstartxref\n${pos}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

export interface UpdateOptions {
  /** Entries pointing at a byte offset of the caller's choosing (an object redirected). */
  redirect?: Record<number, number>;
  /** Objects marked free (§7.5.4: `f` entries). */
  free?: number[];
  /** Trailer keys replacing the previous ones (e.g. `/Info 9 0 R`); /Root, /Info, /Size and /Prev are carried otherwise. */
  trailer?: Record<string, string>;
}

/** `pdf` followed by one incremental update writing `objects` (and the entries of `options`). */
export function appendRevision(pdf: Uint8Array, objects: [number, Body][], options: UpdateOptions = {}): Uint8Array {
  const reader = new PdfReader(pdf);
  const head = Buffer.from(pdf);
  const parts: Buffer[] = [head[head.length - 1] === 0x0a ? head : Buffer.concat([head, Buffer.from('\n')])];
  let pos = parts[0]!.length;
  const entries = new Map<number, string>();
  for (const [num, body] of objects) {
    const bytes = serialise(num, body);
    entries.set(num, inUse(pos));
    parts.push(bytes);
    pos += bytes.length;
  }
  for (const [num, offset] of Object.entries(options.redirect ?? {})) entries.set(Number(num), inUse(offset));
  for (const num of options.free ?? []) entries.set(num, '0000000000 00001 f\r\n');
  const keys: Record<string, string> = {};
  const root = reader.xref.root;
  const info = reader.xref.info;
  if (root instanceof PDFRef) keys.Root = `${root.objectNumber} ${root.generationNumber} R`;
  if (info instanceof PDFRef) keys.Info = `${info.objectNumber} ${info.generationNumber} R`;
  Object.assign(keys, options.trailer ?? {});
  const size = Math.max(reader.xref.size, ...[...entries.keys()].map((n) => n + 1));
  const trailer = Object.entries(keys).map(([k, v]) => `/${k} ${v}`).join(' ');
  parts.push(Buffer.from(`${table(entries)}trailer\n<< /Size ${size} ${trailer} /Prev ${reader.xref.startxref} >>\nstartxref\n${pos}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

/** The object numbers the next update may use: from the document's /Size (or past its highest number). */
export function nextObjectNumber(pdf: Uint8Array): number {
  const reader = new PdfReader(pdf);
  return Math.max(reader.xref.size, ...[...reader.xref.entries.keys()].map((n) => n + 1));
}

/** The body of object `num` as the document's newest cross-reference data has it, as text (dictionaries only). */
export function objectText(pdf: Uint8Array, num: number): string {
  const reader = new PdfReader(pdf);
  const obj = reader.getObject(PDFRef.of(num));
  if (!obj) throw new Error(`object ${num} is not in the document`);
  return obj.toString();
}

/** Where object `num`'s newest definition starts, by the cross-reference data. */
export function offsetOf(pdf: Uint8Array, num: number): number {
  const entry = new PdfReader(pdf).xref.entries.get(num);
  if (entry?.type !== 'offset') throw new Error(`object ${num} is not at an offset`);
  return entry.offset;
}

/**
 * The update that adds object numbers `added` to an array of `pdf`: the one reached from object
 * `start` (or the catalog) through the dictionary keys `path` (e.g. ['AcroForm', 'Fields']).
 * Returns the object to write again: the array itself when it is an object of its own, else the
 * object holding it, everything else in it kept (pdf-lib's serialisation of what was read).
 */
export function addToList(pdf: Uint8Array, start: number | 'catalog', path: string[], added: number[]): [number, Body][] {
  const reader = new PdfReader(pdf);
  let holder = start === 'catalog' ? reader.catalog().ref.objectNumber : start;
  let node = reader.getObject(PDFRef.of(holder));
  for (const key of path) {
    if (!(node instanceof PDFDict)) throw new Error(`no dictionary on the way to /${key}`);
    const raw = node.get(PDFName.of(key));
    if (raw instanceof PDFRef) holder = raw.objectNumber;
    node = reader.resolve(raw);
  }
  if (!(node instanceof PDFArray)) throw new Error(`/${path.join('/')} is not an array`);
  for (const num of added) node.push(PDFRef.of(num));
  return [[holder, reader.getObject(PDFRef.of(holder))!.toString()]];
}

/** An incremental update by our writer adding a text annotation to the first page (ISO 32000-1 §12.5.6.4). */
export function addAnnotation(pdf: Uint8Array): Uint8Array {
  const reader = new PdfReader(pdf);
  const { context, created } = newObjectsAfter(reader);
  const page = findPage(reader, reader.catalog().dict, 'first');
  const note = context.register(context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [10, 10, 30, 30], Contents: PDFString.of('a later note') }));
  const annots = reader.resolve(page.dict.get(PDFName.of('Annots')));
  const list = PDFArray.withContext(context);
  for (const a of annots instanceof PDFArray ? annots.asArray() : []) list.push(a);
  list.push(note);
  page.dict.set(PDFName.of('Annots'), list);
  return writeIncrementalUpdate(pdf, reader.xref, [{ ref: page.ref, object: page.dict }, ...created()]).bytes;
}
