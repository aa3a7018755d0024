/**
 * What changed after a signature, and how much (ISO 32000-1 §12.8.2.2.2 DocMDP permissions; the
 * levels pyHanko's diff analysis uses): the revision the signature covers is read as its own PDF
 * (the file up to the end of its /ByteRange) and compared object by object with the whole file.
 * Each changed object is explained: the DSS and document timestamps (1, permitted by every
 * permission, ETSI EN 319 142-1 §5.4), new signatures and form data (2), annotations (3), or
 * anything else (4, never permitted). A report, never a guess: unexplained changes are named.
 */
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFObject } from 'pdf-lib';
import { PdfReader } from './_pdf-reader';
import { forEachField } from './pdf-check';

export const CHANGE_LEVELS = ['none', 'dss_and_timestamps', 'signing_and_forms', 'annotations', 'other'] as const;
export type ChangeLevel = (typeof CHANGE_LEVELS)[number];

export interface ModificationReport {
  level: ChangeLevel;
  /** One line per changed object that is not a DSS or timestamp update, and every unexplained one. */
  changes: string[];
}

const MAX_WALK = 5_000;

/** Every indirect object reachable from `root` (depth-first, bounded), except through `skip` keys. */
function reachable(reader: PdfReader, root: PDFObject | undefined, into: Set<number>, skip: string[] = []): void {
  let budget = MAX_WALK;
  const walk = (obj: PDFObject | undefined): void => {
    if (!obj || --budget < 0) return;
    if (obj instanceof PDFRef) {
      if (into.has(obj.objectNumber)) return;
      into.add(obj.objectNumber);
      let target: PDFObject | undefined;
      try {
        target = reader.getObject(obj);
      } catch {
        return;
      }
      walk(target);
    } else if (obj instanceof PDFDict) {
      for (const [k, v] of obj.entries()) if (!skip.includes(k.decodeText())) walk(v);
    } else if (obj instanceof PDFArray) {
      for (const v of obj.asArray()) walk(v);
    } else if (obj instanceof PDFRawStream) {
      walk(obj.dict);
    }
  };
  walk(root);
}

function signedFieldRefs(reader: PdfReader, catalog: PDFDict): Map<number, PDFDict> {
  const out = new Map<number, PDFDict>();
  const acroForm = reader.getDict(catalog, 'AcroForm');
  forEachField(reader, acroForm && reader.getArray(acroForm, 'Fields'), (field, type, ref) => {
    if (ref && type === PDFName.of('Sig') && field.get(PDFName.of('V')) !== undefined) out.set(ref.objectNumber, field);
  });
  return out;
}

const same = (a: PDFObject | undefined, b: PDFObject | undefined) => (a === undefined ? b === undefined : b !== undefined && a.toString() === b.toString());

interface Context {
  cur: PdfReader;
  old: PdfReader;
  lta: Set<number>;
  form: Set<number>;
}

/** The level of an object added to an array (/Fields, /Annots): its own set, else an annotation or other. */
function levelOfAdded(c: Context, item: PDFObject): number {
  if (item instanceof PDFRef) {
    if (c.lta.has(item.objectNumber)) return 1;
    if (c.form.has(item.objectNumber)) return 2;
    const obj = c.cur.resolve(item);
    if (obj instanceof PDFDict && obj.get(PDFName.of('Subtype')) instanceof PDFName && obj.get(PDFName.of('Subtype')) !== PDFName.of('Widget')) return 3;
  }
  return 4;
}

/** An array that only grew: the highest level of what was added; 4 when anything was removed or changed. */
function levelOfArray(c: Context, before: PDFObject | undefined, after: PDFObject | undefined): number {
  const a = c.old.resolve(before);
  const b = c.cur.resolve(after);
  const oldItems = a instanceof PDFArray ? a.asArray().map((x) => x.toString()) : [];
  if (!(b instanceof PDFArray)) return 4;
  const newItems = b.asArray();
  if (newItems.length < oldItems.length || oldItems.some((x, i) => newItems[i]!.toString() !== x)) return 4;
  return Math.max(0, ...newItems.slice(oldItems.length).map((x) => levelOfAdded(c, x)));
}

/** Dictionaries whose changes are judged key by key: the catalog, the AcroForm, a page. */
const KEY_RULES: Record<string, Record<string, 'array' | number>> = {
  catalog: { DSS: 1, AcroForm: 'array', Extensions: 1 },
  acroForm: { Fields: 'array', SigFlags: 2, DR: 2, DA: 2, NeedAppearances: 2 },
  page: { Annots: 'array' },
};

function levelOfDict(c: Context, rules: Record<string, 'array' | number>, before: PDFDict, after: PDFDict, what: string, changes: string[]): number {
  let level = 0;
  const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
  for (const key of keys) {
    const a = before.get(PDFName.of(key));
    const b = after.get(PDFName.of(key));
    if (same(a, b)) continue;
    const rule = rules[key];
    let l: number;
    if (rule === 'array') {
      // An inline /AcroForm of the catalog is itself judged as the AcroForm.
      const ra = c.old.resolve(a);
      const rb = c.cur.resolve(b);
      l = key === 'AcroForm' && ra instanceof PDFDict && rb instanceof PDFDict ? levelOfDict(c, KEY_RULES.acroForm!, ra, rb, 'the AcroForm', changes) : key === 'AcroForm' ? 4 : levelOfArray(c, a, b);
    } else {
      l = rule ?? 4;
    }
    if (l === 4) changes.push(`${what}: /${key} changed`);
    level = Math.max(level, l);
  }
  return level;
}

export function analyseChanges(pdf: Uint8Array, revisionEnd: number): ModificationReport {
  if (revisionEnd >= pdf.length) return { level: 'none', changes: [] };
  const cur = new PdfReader(pdf);
  let old: PdfReader;
  try {
    old = new PdfReader(pdf.subarray(0, revisionEnd));
  } catch (e) {
    return { level: 'other', changes: [`the signed revision cannot be read on its own: ${(e as Error).message}`] };
  }
  const catalog = cur.catalog();
  const oldCatalog = old.catalog();
  const c: Context = { cur, old, lta: new Set(), form: new Set() };
  // DSS: everything under it. New signature fields: the field, its value and its appearance.
  reachable(cur, catalog.dict.get(PDFName.of('DSS')), c.lta);
  const before = signedFieldRefs(old, oldCatalog.dict);
  for (const [num, field] of signedFieldRefs(cur, catalog.dict)) {
    if (before.has(num)) continue;
    const v = cur.get(field, 'V');
    const set = v instanceof PDFDict && v.get(PDFName.of('Type')) === PDFName.of('DocTimeStamp') ? c.lta : c.form;
    set.add(num);
    reachable(cur, field.get(PDFName.of('V')), set);
    reachable(cur, field.get(PDFName.of('AP')), set);
  }
  const oldAcroForm = oldCatalog.dict.get(PDFName.of('AcroForm'));
  const changes: string[] = [];
  let level = 0;
  for (const [num, entry] of cur.xref.entries) {
    if (entry.type === 'free') continue;
    const prior = old.xref.entries.get(num);
    const unchanged = prior && prior.type === entry.type && JSON.stringify(prior) === JSON.stringify(entry);
    if (unchanged) continue;
    const ref = PDFRef.of(num, entry.type === 'offset' ? entry.generation : 0);
    let obj: PDFObject | undefined;
    try {
      obj = cur.getObject(ref);
    } catch {
      changes.push(`object ${num} changed and cannot be read`);
      level = 4;
      continue;
    }
    const type = obj instanceof PDFRawStream ? obj.dict.get(PDFName.of('Type')) : obj instanceof PDFDict ? obj.get(PDFName.of('Type')) : undefined;
    // Containers of the update itself: what they hold is listed object by object.
    if (type === PDFName.of('XRef') || type === PDFName.of('ObjStm')) continue;
    let l: number;
    let what = `object ${num}${type instanceof PDFName ? ` (${type.decodeText()})` : ''}`;
    if (c.lta.has(num)) l = 1;
    else if (c.form.has(num)) l = 2;
    else {
      let previous: PDFObject | undefined;
      try {
        previous = prior && prior.type !== 'free' ? old.getObject(ref) : undefined;
      } catch {
        previous = undefined;
      }
      if (num === catalog.ref.objectNumber && previous instanceof PDFDict && obj instanceof PDFDict) {
        l = levelOfDict(c, KEY_RULES.catalog!, previous, obj, 'the catalog', changes);
        what = 'the catalog';
      } else if (oldAcroForm instanceof PDFRef && num === oldAcroForm.objectNumber && previous instanceof PDFDict && obj instanceof PDFDict) {
        l = levelOfDict(c, KEY_RULES.acroForm!, previous, obj, 'the AcroForm', changes);
        what = 'the AcroForm';
      } else if (type === PDFName.of('Page') && previous instanceof PDFDict && obj instanceof PDFDict) {
        l = levelOfDict(c, KEY_RULES.page!, previous, obj, `page object ${num}`, changes);
      } else if (previous instanceof PDFArray || (previous === undefined && obj instanceof PDFArray)) {
        l = levelOfArray(c, previous, obj);
      } else if (obj instanceof PDFDict && obj.get(PDFName.of('Subtype')) instanceof PDFName) {
        // An annotation: a widget's value or look is form filling (2), any other annotation is 3.
        l = obj.get(PDFName.of('Subtype')) === PDFName.of('Widget') ? 2 : 3;
      } else {
        l = 4;
      }
      if (l === 4 && !changes.some((x) => x.startsWith(what))) changes.push(`${what} ${previous === undefined ? 'added' : 'changed'}`);
    }
    if (l >= 2 && l < 4) changes.push(`${what}: ${CHANGE_LEVELS[l]!.replace(/_/g, ' ')}`);
    level = Math.max(level, l);
  }
  return { level: CHANGE_LEVELS[level]!, changes };
}

/**
 * ISO 32000-1 Table 254 (P 1: none, 2: form filling and signing, 3: also annotations), DSS and
 * document timestamps permitted at every level (ETSI EN 319 142-1 §5.4); without a certification
 * only changes no level explains are refused.
 */
export function changesAllowed(level: ChangeLevel, permission: null | 1 | 2 | 3): boolean {
  const n = CHANGE_LEVELS.indexOf(level);
  return n < 4 && (permission === null || n <= permission);
}
