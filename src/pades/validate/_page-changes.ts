/**
 * Annotations (class 3, DocMDP P=3, ISO 32000-1 §12.8.2.2.2 Table 254): a page may gain or lose
 * annotations (§12.5.2), with their tab order; anything else about a page is class 4 (§7.7.3.3).
 * A widget added or removed is its field's business (_form-changes.ts), not an annotation's.
 */
import { PDFName, PDFRawStream, PDFRef, type PDFObject } from 'pdf-lib';
import type { PdfReader } from '../pdf';
import { fieldLevel, newFieldLevel } from './_field-class';
import { sameValue } from './_pdf-equal';
import { dictOf, items, judgeList, nameOf, verbOf, verdict, type Change, type DiffView, type Level, type Verdict } from './_verdict';

/**
 * Page keys other than /Annots that a permitted update may change (§7.7.3.3 Table 31): the
 * page's key into the structure tree's parent tree, /StructParents (§14.7.5.4), with the tree
 * (class 2); the annotations' tab order, /Tabs, with the annotations (class 3).
 */
const PAGE_KEYS: Record<string, Level> = { StructParents: 2, Tabs: 3 };

/** §7.7.3.3 Table 30: a page may only gain or lose annotations, with their tab order and its structure key (PAGE_KEYS). */
export function judgePage(d: DiffView, c: Change): Verdict {
  const what = `page object ${c.num}`;
  if (c.kind !== 'modified') return verdict(4, `${what} ${verbOf(c)}`);
  const before = dictOf(c.before);
  const after = dictOf(c.after);
  if (!before || !after || c.after instanceof PDFRawStream) return verdict(4, `${what} changed into something that is not a page`);
  let level: Level = 0;
  const lines: string[] = [];
  const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
  for (const key of keys) {
    if (sameValue(before.get(PDFName.of(key)), after.get(PDFName.of(key)))) continue;
    if (key === 'Annots') {
      const v = d.once(`annots:${c.num}`, () => judgeAnnots(d, c.num));
      lines.push(...v.lines);
      if (v.level > level) level = v.level;
    } else if (PAGE_KEYS[key] !== undefined) {
      if (PAGE_KEYS[key]! > level) level = PAGE_KEYS[key]!;
    } else {
      level = 4;
      lines.push(`${what}: /${key} changed`);
    }
  }
  return verdict(level, ...lines);
}

/** The /Annots of page `page` in the revision against the document's (§12.5.2). */
export function judgeAnnots(d: DiffView, page: number): Verdict {
  const annotsOf = (r: PdfReader) => {
    const p = dictOf(d.read(r, page));
    return items(p ? d.resolve(r, p.get(PDFName.of('Annots'))) : undefined);
  };
  const where = `page object ${page}: /Annots`;
  return judgeList(
    annotsOf(d.old),
    annotsOf(d.cur),
    where,
    (item) => addedAnnot(d, item, where),
    (item) => {
      // A widget belongs to a field: removing it is not removing an annotation.
      const a = dictOf(item instanceof PDFRef ? d.read(d.old, item.objectNumber) : item);
      return nameOf(a, 'Subtype') === 'Widget' ? 4 : 3;
    },
    3,
  );
}

function addedAnnot(d: DiffView, item: PDFObject, where: string): Verdict {
  const a = dictOf(item instanceof PDFRef ? d.read(d.cur, item.objectNumber) : item);
  if (!a || item instanceof PDFRawStream) return verdict(4, `${where}: something that is not an annotation added`);
  if (!(item instanceof PDFRef)) return verdict(nameOf(a, 'Subtype') === 'Widget' ? 4 : 3);
  const change = d.changes.get(item.objectNumber);
  const cls = d.fieldClass(item.objectNumber);
  if (cls) {
    if (change?.kind === 'new') return verdict(newFieldLevel(cls));
    // An existing widget put on a page: its field's level (a signature field placed when signed).
    return verdict(cls.kind === 'form' || cls.kind === 'locked' ? 4 : fieldLevel(cls), ...(cls.kind === 'form' || cls.kind === 'locked' ? [`${where}: widget of field '${cls.name}' (object ${item.objectNumber}) added`] : []));
  }
  return verdict(a.get(PDFName.of('Subtype')) instanceof PDFName ? 3 : 4);
}
