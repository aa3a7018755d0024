/**
 * The signature field and its dictionaries (ISO 32000-1 §12.7.4.5 signature fields, §12.5.6.19
 * widgets, §12.8.1 Table 252 signature dictionary, ETSI EN 319 142-1 §5.1/§6.3 for PAdES):
 * one widget merged with its field, linked from the page's /Annots and the AcroForm's /Fields,
 * with /SigFlags 3 (§12.7.2 Table 219: SignaturesExist | AppendOnly).
 */
import { PDFArray, PDFContext, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import type { PdfReader } from './pdf-reader';
import { byteRangePlaceholder, contentsPlaceholder } from './byterange';
import { forEachField } from './pdf-check';
import type { UpdateObject } from './incremental-writer';

/** Characters PDFDocEncoding (Annex D.2) shares with Latin-1: printable ASCII, tab/LF/CR, 0xA1-0xFF but 0xAD. */
function isPdfDocEncodable(text: string): boolean {
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const ok = c === 0x09 || c === 0x0a || c === 0x0d || (c >= 0x20 && c <= 0x7e) || (c >= 0xa1 && c <= 0xff && c !== 0xad);
    if (!ok) return false;
  }
  return true;
}

/** §7.9.2.2 text string: PDFDocEncoding when every character has a code there, else UTF-16BE with BOM. */
export function pdfTextString(text: string): PDFString | PDFHexString {
  if (!isPdfDocEncodable(text)) return PDFHexString.fromText(text);
  let escaped = '';
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (ch === '(' || ch === ')' || ch === '\\') escaped += `\\${ch}`;
    else if (c === 0x0a) escaped += '\\n';
    else if (c === 0x0d) escaped += '\\r';
    else if (c > 0x7e) escaped += `\\${c.toString(8).padStart(3, '0')}`;
    else escaped += ch;
  }
  return PDFString.of(escaped);
}

/** §7.9.4 date, always in UTC: D:YYYYMMDDHHmmSS+00'00'. */
export function pdfDate(date: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `D:${p(date.getUTCFullYear(), 4)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}+00'00'`;
}

export interface SignatureDictionaryOptions {
  signingTime: Date;
  reason?: string | null;
  location?: string | null;
  signerName?: string | null;
  contentsHexLength: number;
  /** A certification signature with this DocMDP permission (ISO 32000-1 §12.8.2.2, Table 254). */
  certify?: 1 | 2 | 3 | null;
}

/**
 * The DocMDP signature reference (ISO 32000-1 Table 253, Table 254): /TransformParams /P is the
 * permission (1: no change, 2: form filling and signing, 3: also annotations), /V /1.2 the
 * transform version readers implement.
 */
function docMdpReference(context: PDFContext, permission: 1 | 2 | 3): PDFArray {
  return context.obj([
    { Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', P: permission, V: '1.2' } },
  ]) as PDFArray;
}

/**
 * ISO 32000-1 §12.8.2.2.1: the certification signature is the first signed field of the document,
 * so a document that holds a signature already cannot be certified.
 */
export function refuseCertifyingSigned(signatureCount: number): void {
  if (signatureCount > 0) {
    throw new PdfInputError(`certify: the document is already signed (${signatureCount} signature${signatureCount > 1 ? 's' : ''}); only its first signature can certify it (ISO 32000-1 §12.8.2.2)`);
  }
}

/**
 * Makes the signature `signatureRef` the document's certification signature: the catalog's /Perms
 * /DocMDP points at it (§12.8.4, Table 258). Adds the catalog to `rewrites` when not there yet.
 */
export function certifyCatalog(o: { reader: PdfReader; context: PDFContext; catalogRef: PDFRef; catalog: PDFDict; signatureRef: PDFRef; rewrites: UpdateObject[] }): void {
  const perms = o.reader.resolve(o.catalog.get(PDFName.of('Perms')));
  const dict = perms instanceof PDFDict ? perms : (o.context.obj({}) as PDFDict);
  dict.set(PDFName.of('DocMDP'), o.signatureRef);
  const entry = o.catalog.get(PDFName.of('Perms'));
  const target = entry instanceof PDFRef && perms instanceof PDFDict ? entry : o.catalogRef;
  if (target === o.catalogRef) o.catalog.set(PDFName.of('Perms'), dict);
  if (!o.rewrites.some((r) => r.ref.objectNumber === target.objectNumber)) {
    o.rewrites.push({ ref: PDFRef.of(target.objectNumber, o.reader.generationOf(target.objectNumber)), object: target === o.catalogRef ? o.catalog : dict });
  }
}

/** Table 252 with PAdES values; /ByteRange and /Contents are fixed-width placeholders. */
export function buildSignatureDictionary(context: PDFContext, o: SignatureDictionaryOptions): PDFDict {
  const dict = context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
  }) as PDFDict;
  dict.set(PDFName.of('ByteRange'), byteRangePlaceholder());
  dict.set(PDFName.of('Contents'), contentsPlaceholder(o.contentsHexLength));
  dict.set(PDFName.of('M'), PDFString.of(pdfDate(o.signingTime)));
  if (o.reason != null) dict.set(PDFName.of('Reason'), pdfTextString(o.reason));
  if (o.location != null) dict.set(PDFName.of('Location'), pdfTextString(o.location));
  if (o.signerName != null) dict.set(PDFName.of('Name'), pdfTextString(o.signerName));
  if (o.certify) dict.set(PDFName.of('Reference'), docMdpReference(context, o.certify));
  return dict;
}

export interface PageRef {
  ref: PDFRef;
  dict: PDFDict;
  index: number;
}

/** Walks the page tree (§7.7.3.2) using /Count to skip subtrees, so only one branch is loaded. */
export function findPage(reader: PdfReader, catalog: PDFDict, which: 'first' | 'last' | number): PageRef {
  const root = reader.getDict(catalog, 'Pages');
  const total = root ? reader.getNumber(root, 'Count') ?? 0 : 0;
  let target: number;
  if (which === 'first') target = 0;
  else if (which === 'last') target = total - 1;
  else if (Number.isInteger(which) && which >= 1) target = which - 1;
  else throw new PdfInputError(`stamp page must be "first", "last" or a page number from 1, got ${String(which)}`);
  if (target >= total || target < 0) {
    throw new PdfInputError(`stamp page ${String(which)} is beyond the page count (${total})`);
  }
  let node = root!;
  let skip = target;
  for (let depth = 0; depth < 64; depth++) {
    const kids = reader.getArray(node, 'Kids');
    let descended = false;
    for (const kid of kids?.asArray() ?? []) {
      const dict = reader.resolve(kid);
      if (!(dict instanceof PDFDict) || !(kid instanceof PDFRef)) continue;
      const isLeaf = reader.get(dict, 'Type') !== PDFName.of('Pages') && !dict.has(PDFName.of('Kids'));
      const count = isLeaf ? 1 : reader.getNumber(dict, 'Count') ?? 0;
      if (skip >= count) {
        skip -= count;
        continue;
      }
      if (isLeaf) return { ref: kid, dict, index: target };
      node = dict;
      descended = true;
      break;
    }
    if (!descended) break;
  }
  throw new PdfInputError(`page ${target + 1} cannot be found in the page tree`);
}

/**
 * The number, from 1, of the page `ref` in the page tree: up its /Parent chain (§7.7.3.3),
 * counting the pages of the kids before it at each level. Null when the chain does not lead to
 * the catalog's /Pages (a widget whose /P names a page outside the tree).
 */
export function pageNumberOf(reader: PdfReader, catalog: PDFDict, ref: PDFRef): number | null {
  const rootRef = catalog.get(PDFName.of('Pages'));
  let child = ref;
  let before = 0;
  for (let depth = 0; depth < 64; depth++) {
    if (rootRef instanceof PDFRef && child.objectNumber === rootRef.objectNumber) return depth === 0 ? null : before + 1;
    const dict = reader.resolve(child);
    const parentRef = dict instanceof PDFDict ? dict.get(PDFName.of('Parent')) : undefined;
    const parent = parentRef instanceof PDFRef ? reader.resolve(parentRef) : undefined;
    if (!(parentRef instanceof PDFRef) || !(parent instanceof PDFDict)) return null;
    let found = false;
    for (const kid of reader.getArray(parent, 'Kids')?.asArray() ?? []) {
      if (kid instanceof PDFRef && kid.objectNumber === child.objectNumber) {
        found = true;
        break;
      }
      const node = reader.resolve(kid);
      if (!(node instanceof PDFDict)) continue;
      const isLeaf = reader.get(node, 'Type') !== PDFName.of('Pages') && !node.has(PDFName.of('Kids'));
      before += isLeaf ? 1 : reader.getNumber(node, 'Count') ?? 0;
    }
    if (!found) return null;
    child = parentRef;
  }
  return null;
}

/** `Signature1`, `Signature2`, … : the first not already a top-level field name (§12.7.3.2). */
export function uniqueFieldName(reader: PdfReader, fields: PDFArray | undefined): string {
  const taken = new Set<string>();
  for (const item of fields?.asArray() ?? []) {
    const field = reader.resolve(item);
    const t = field instanceof PDFDict ? reader.get(field, 'T') : undefined;
    if (t instanceof PDFString || t instanceof PDFHexString) taken.add(t.decodeText());
  }
  let n = 1;
  while (taken.has(`Signature${n}`)) n++;
  return `Signature${n}`;
}

export interface SignatureFieldInput {
  reader: PdfReader;
  context: PDFContext;
  catalogRef: PDFRef;
  catalog: PDFDict;
  page: PageRef;
  rect: [number, number, number, number];
  appearanceRef: PDFRef;
  signatureRef: PDFRef;
}

/** Adds the widget-field; returns it plus whole rewrites of every existing object it changed. */
export function addSignatureField(o: SignatureFieldInput): { fieldRef: PDFRef; fieldName: string; rewrites: UpdateObject[] } {
  const { reader, context, catalog } = o;
  const rewrites: UpdateObject[] = [];
  const rewrite = (ref: PDFRef, object: PDFDict | PDFArray) => {
    if (!rewrites.some((r) => r.ref === ref)) rewrites.push({ ref: PDFRef.of(ref.objectNumber, reader.generationOf(ref.objectNumber)), object });
  };
  const acroFormEntry = catalog.get(PDFName.of('AcroForm'));
  let acroForm = reader.resolve(acroFormEntry);
  if (!(acroForm instanceof PDFDict)) acroForm = undefined;
  const fieldsEntry = acroForm?.get(PDFName.of('Fields'));
  const fieldsResolved = reader.resolve(fieldsEntry);
  const fields = fieldsResolved instanceof PDFArray ? fieldsResolved : undefined;
  const fieldName = uniqueFieldName(reader, fields);

  const field = context.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Sig',
    F: 4, // §12.5.3 Table 165: Print
    Rect: o.rect,
    P: o.page.ref,
    V: o.signatureRef,
    AP: { N: o.appearanceRef },
  }) as PDFDict;
  field.set(PDFName.of('T'), pdfTextString(fieldName));
  const fieldRef = context.register(field);

  // AcroForm: indirect (rewrite it), inline in the catalog (rewrite the catalog) or new.
  if (acroForm) {
    if (fields && fieldsEntry instanceof PDFRef) {
      fields.push(fieldRef);
      rewrite(fieldsEntry, fields);
    } else if (fields) {
      fields.push(fieldRef);
    } else {
      acroForm.set(PDFName.of('Fields'), context.obj([fieldRef]));
    }
    acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(3));
    if (acroFormEntry instanceof PDFRef) rewrite(acroFormEntry, acroForm);
    else rewrite(o.catalogRef, catalog);
  } else {
    const created = context.obj({ Fields: [fieldRef], SigFlags: 3 }) as PDFDict;
    catalog.set(PDFName.of('AcroForm'), context.register(created));
    rewrite(o.catalogRef, catalog);
  }

  // Page /Annots: an indirect array is rewritten itself, otherwise the page is.
  const annotsEntry = o.page.dict.get(PDFName.of('Annots'));
  const annots = reader.resolve(annotsEntry);
  if (annots instanceof PDFArray && annotsEntry instanceof PDFRef) {
    annots.push(fieldRef);
    rewrite(annotsEntry, annots);
  } else {
    if (annots instanceof PDFArray) annots.push(fieldRef);
    else o.page.dict.set(PDFName.of('Annots'), context.obj([fieldRef]));
    rewrite(o.page.ref, o.page.dict);
  }
  return { fieldRef, fieldName, rewrites };
}

export interface EmptySignatureField {
  ref: PDFRef;
  field: PDFDict;
  pageRef: PDFRef;
  rect: [number, number, number, number];
  name: string;
}

/**
 * The first empty signature field that is also its widget (§12.7.4.5: FT /Sig, no /V; §12.5.6.19
 * merged field-widget with /Rect and /P). Forms prepared for signing carry one, and signing into
 * it is what readers expect: a new field beside it would leave "signature required" showing, and
 * a certified (DocMDP P=2) form permits signing its fields rather than adding annotations.
 */
export function findEmptySignatureField(reader: PdfReader, catalog: PDFDict, o: { needsArea?: boolean } = {}): EmptySignatureField | null {
  const acroForm = reader.getDict(catalog, 'AcroForm');
  let found: EmptySignatureField | null = null;
  forEachField(reader, acroForm && reader.getArray(acroForm, 'Fields'), (field, type, ref) => {
    if (found || !ref || type !== PDFName.of('Sig') || field.get(PDFName.of('FT')) !== PDFName.of('Sig')) return;
    if (field.get(PDFName.of('V')) !== undefined || field.get(PDFName.of('Kids')) !== undefined) return;
    if (reader.get(field, 'Subtype') !== PDFName.of('Widget')) return;
    const page = field.get(PDFName.of('P'));
    const rect = reader.getArray(field, 'Rect')?.asArray().map((n) => reader.resolve(n));
    if (!(page instanceof PDFRef) || !rect || rect.length !== 4 || !rect.every((n) => n instanceof PDFNumber)) return;
    const [a, b, c, d] = rect.map((n) => (n as PDFNumber).asNumber()) as [number, number, number, number];
    // A stamp needs room: CONTRACT "visible whenever a design applies", so a zero-size field is
    // left alone then and the signature gets a new, visible field.
    if (o.needsArea && (a === c || b === d)) return;
    const t = reader.get(field, 'T');
    found = {
      ref,
      field,
      pageRef: page,
      rect: [Math.min(a, c), Math.min(b, d), Math.max(a, c), Math.max(b, d)],
      name: t instanceof PDFString || t instanceof PDFHexString ? t.decodeText() : '',
    };
  });
  return found;
}

/** Signs into an existing empty field: /V and the appearance on it, /SigFlags 3 on the form. */
export function fillSignatureField(o: {
  reader: PdfReader;
  context: PDFContext;
  catalogRef: PDFRef;
  catalog: PDFDict;
  target: EmptySignatureField;
  appearanceRef: PDFRef;
  signatureRef: PDFRef;
}): { fieldName: string; rewrites: UpdateObject[] } {
  const { reader, catalog, target } = o;
  const rewrites: UpdateObject[] = [];
  const rewrite = (ref: PDFRef, object: PDFDict) =>
    rewrites.push({ ref: PDFRef.of(ref.objectNumber, reader.generationOf(ref.objectNumber)), object });
  target.field.set(PDFName.of('V'), o.signatureRef);
  target.field.set(PDFName.of('AP'), o.context.obj({ N: o.appearanceRef }));
  // §12.5.3 Table 165: keep the form's flags but Print on, Invisible/Hidden/NoView off.
  const flags = reader.get(target.field, 'F');
  target.field.set(PDFName.of('F'), PDFNumber.of(((flags instanceof PDFNumber ? flags.asNumber() : 0) | 4) & ~0x23));
  rewrite(target.ref, target.field);
  const acroFormEntry = catalog.get(PDFName.of('AcroForm'));
  const acroForm = reader.resolve(acroFormEntry);
  if (acroForm instanceof PDFDict) {
    acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(3));
    if (acroFormEntry instanceof PDFRef) rewrite(acroFormEntry, acroForm);
    else rewrite(o.catalogRef, catalog);
  }
  return { fieldName: target.name, rewrites };
}

/** Used by checks that count or list signature fields. */
export function signatureFields(reader: PdfReader, catalog: PDFDict): PDFDict[] {
  const acroForm = reader.getDict(catalog, 'AcroForm');
  const out: PDFDict[] = [];
  forEachField(reader, acroForm && reader.getArray(acroForm, 'Fields'), (field, type) => {
    if (type === PDFName.of('Sig')) out.push(field);
  });
  return out;
}
