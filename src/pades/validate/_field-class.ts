/**
 * What a form field or widget is in the document now, against the signed revision (ISO 32000-1
 * §12.7.3.1 fields, §12.7.4.5 signature fields, §12.5.3 flags): a field signed in the revision,
 * a document timestamp, a signature, an empty signature field, or a form field of another type;
 * and the class its changes have for that.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef } from 'pdf-lib';
import { dictOf, items, label, nameOf, type DiffView, type FieldClass, type Level } from './_verdict';

/** A field (/FT, /T) or a widget annotation: what classifyField classes. */
export function isFieldOrWidget(d: PDFDict): boolean {
  return d.has(PDFName.of('FT')) || d.has(PDFName.of('T')) || nameOf(d, 'Subtype') === 'Widget';
}

/** A widget shows when its /Rect has an area and neither Hidden nor NoView is set (§12.5.3 Table 165). */
function showsOnPage(d: PDFDict | undefined): boolean {
  if (!d) return false;
  const rect = d.get(PDFName.of('Rect'));
  const f = d.get(PDFName.of('F'));
  const flags = f instanceof PDFNumber ? f.asNumber() : 0;
  if (!(rect instanceof PDFArray) || rect.size() !== 4 || (flags & 2) !== 0 || (flags & 32) !== 0) return false;
  const n = rect.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : 0));
  return Math.abs(n[2]! - n[0]!) * Math.abs(n[3]! - n[1]!) > 0;
}

/**
 * What the field (or widget) `num` is: its type inherited through /Parent (§12.7.3.1), the
 * terminal field holding /V, whether that was signed in the revision, whether it shows.
 * Null for an object that is not a field or widget.
 */
export function classifyField(d: Pick<DiffView, 'cur' | 'old' | 'read' | 'resolve'>, num: number): FieldClass | null {
  const self = d.read(d.cur, num);
  if (!(self instanceof PDFDict) || !isFieldOrWidget(self)) return null;
  // The chain from the object up through /Parent, with object numbers (bounded: §12.7.3.1 trees are shallow).
  const chain: { num: number; dict: PDFDict }[] = [{ num, dict: self }];
  for (let i = 0; i < 32; i++) {
    const up = chain[chain.length - 1]!.dict.get(PDFName.of('Parent'));
    const parent = up instanceof PDFRef ? d.read(d.cur, up.objectNumber) : undefined;
    if (!(up instanceof PDFRef) || !(parent instanceof PDFDict) || chain.some((x) => x.num === up.objectNumber)) break;
    chain.push({ num: up.objectNumber, dict: parent });
  }
  const type = chain.map((x) => nameOf(x.dict, 'FT')).find((t) => t !== undefined) ?? '';
  const field = chain.find((x) => x.dict.has(PDFName.of('T')) || x.dict.has(PDFName.of('V'))) ?? chain[0]!;
  const widgets = field.dict.has(PDFName.of('Rect')) ? [field.dict] : items(d.resolve(d.cur, field.dict.get(PDFName.of('Kids')))).map((k) => dictOf(d.resolve(d.cur, k)));
  const visible = showsOnPage(self) || widgets.some(showsOnPage);
  const name = label(field.dict.get(PDFName.of('T')));
  const fullName = chain.slice(chain.indexOf(field)).map((x) => label(x.dict.get(PDFName.of('T')))).filter((t) => t !== '').reverse().join('.');
  if (type !== 'Sig') {
    if (type !== '' || !nameOf(self, 'Subtype') || nameOf(self, 'Subtype') === 'Widget') return { kind: 'form', visible, name, fullName, type: type ? `/${type}` : '' };
    return null;
  }
  const signedBefore = dictOf(d.read(d.old, field.num))?.has(PDFName.of('V')) === true && d.old.xref.entries.get(field.num)?.type !== 'free';
  const v = dictOf(d.resolve(d.cur, field.dict.get(PDFName.of('V'))));
  const kind = signedBefore ? 'locked' : !v ? 'empty-signature' : nameOf(v, 'Type') === 'DocTimeStamp' || nameOf(v, 'SubFilter') === 'ETSI.RFC3161' ? 'dts' : 'signature';
  return { kind, visible, name, fullName, type: '/Sig' };
}

/**
 * The level of changes to a field (its value, appearance, widgets) by what it is: a document
 * timestamp no one sees is an extension (pyHanko clears it at LTA_UPDATES), a signature or a
 * filled form is form filling, an empty signature field on a page draws over it like an
 * annotation, a signed field is locked.
 */
export function fieldLevel(c: FieldClass): Level {
  switch (c.kind) {
    case 'dts':
      return c.visible ? 2 : 1;
    case 'signature':
    case 'form':
      return 2;
    case 'empty-signature':
      return c.visible ? 3 : 2;
    case 'locked':
      return 4;
  }
}

/** The level of a field added after the revision: only a signature field (or a timestamp's) is permitted. */
export function newFieldLevel(cls: FieldClass): Level {
  return cls.kind === 'form' || cls.kind === 'locked' ? 4 : fieldLevel(cls);
}
