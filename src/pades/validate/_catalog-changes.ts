/**
 * The catalog (ISO 32000-1 §7.7.2 Table 28), key by key: the DSS (ETSI EN 319 142-1 §5.4),
 * /Extensions, XMP /Metadata and /Version are extensions every permission allows (class 1); the
 * structure tree, /MarkInfo, /PieceInfo, /Names but its /JavaScript, and a first /Perms or
 * /OutputIntents come with signing and forms (class 2); the AcroForm is judged as forms are
 * (_form-changes.ts); any other key is class 4.
 */
import { PDFDict, PDFName, PDFRef, type PDFObject } from 'pdf-lib';
import type { PdfReader } from '../pdf';
import { judgeAcroForm } from './_form-changes';
import { sameValue } from './_pdf-equal';
import { verdict, type DiffView, type Level, type Verdict } from './_verdict';

/** Catalog keys and their class when they change; the rest are class 4 (§7.7.2 Table 28). */
const CATALOG_KEYS: Record<string, Level> = {
  DSS: 1,
  Extensions: 1,
  Metadata: 1,
  Version: 1,
  StructTreeRoot: 2,
  MarkInfo: 2,
  PieceInfo: 2,
  Names: 2,
};

/** ISO 32000-1 §7.7.2 Table 28, key by key; only the keys the classes name may change. */
export function judgeCatalog(d: DiffView): Verdict {
  const before = d.old.catalog().dict;
  const after = d.cur.catalog().dict;
  let level: Level = 0;
  const lines: string[] = [];
  const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
  for (const key of keys) {
    const a = before.get(PDFName.of(key));
    const b = after.get(PDFName.of(key));
    if (sameValue(a, b)) continue;
    let l: Level;
    if (key === 'AcroForm') {
      const v = d.once('acroform', () => judgeAcroForm(d));
      lines.push(...v.lines);
      l = v.level;
    } else if (key === 'Perms' || key === 'OutputIntents') {
      l = a === undefined ? 2 : 4;
    } else if (key === 'Names' && !(b instanceof PDFRef)) {
      // A direct /Names: its /JavaScript tree is not a name a signature permits (§7.7.4).
      const js = (n: PDFObject | undefined, r: PdfReader) => (d.resolve(r, n) instanceof PDFDict ? (d.resolve(r, n) as PDFDict).get(PDFName.of('JavaScript')) : undefined);
      l = sameValue(js(a, d.old), js(b, d.cur)) ? 2 : 4;
    } else {
      l = CATALOG_KEYS[key] ?? 4;
    }
    if (l === 4 && key !== 'AcroForm') lines.push(`the catalog: /${key} changed`);
    if (l > level) level = l;
  }
  return verdict(level, ...lines);
}
