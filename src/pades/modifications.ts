/**
 * What changed after a signature, and how much (ISO 32000-1 §12.8.2.2.2 DocMDP permissions; the
 * levels pyHanko's diff analysis uses): the revision the signature covers is read as its own PDF
 * (the file up to the end of its /ByteRange) and compared object by object with the whole file.
 * Each changed object is explained: the DSS and document timestamps (1, permitted by every
 * permission, ETSI EN 319 142-1 §5.4), new signatures and form data (2), annotations (3), or
 * anything else (4, never permitted). A report, never a guess: unexplained changes are named.
 *
 * Bounded (issue 15): one ChangeAnalysis per document, each revision analysed once whatever
 * number of signatures ends there; only the objects the later cross-reference sections list are
 * examined, at most MAX_CHANGED_OBJECTS of them, and at most MAX_CHANGES_LISTED lines are kept.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';
import { TooComplexError } from './_limits';
import { PdfReader } from './_pdf-reader';
import { forEachField } from './pdf-check';
import type { XrefEntry } from './xref';

export const CHANGE_LEVELS = ['none', 'dss_and_timestamps', 'signing_and_forms', 'annotations', 'other'] as const;
export type ChangeLevel = (typeof CHANGE_LEVELS)[number];

export interface ModificationReport {
  level: ChangeLevel;
  /**
   * One line per changed object that is not a DSS or timestamp update, and every unexplained
   * one: the first MAX_CHANGES_LISTED of them (200 fields gave a 15 MB answer before issue 15).
   */
  changes: string[];
  /** How many lines there were; more than `changes.length` when some were left out. */
  changesTotal: number;
}

/** Lines kept per signature: enough to see what kind of change it was, never the whole file. */
export const MAX_CHANGES_LISTED = 50;
/**
 * Changed objects examined after one revision. DocMDP-permitted updates (a signature, form
 * filling, annotations, the DSS) change a few objects each; past this many, the update is
 * a rewrite of the document and level 4 without looking further.
 */
export const MAX_CHANGED_OBJECTS = 10_000;

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

/** Two objects written the same; strings compared as they are, without copying them into a larger text. */
function same(a: PDFObject | undefined, b: PDFObject | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a === b) return true;
  if ((a instanceof PDFString && b instanceof PDFString) || (a instanceof PDFHexString && b instanceof PDFHexString)) return a.asString() === b.asString();
  if (a instanceof PDFString || a instanceof PDFHexString || b instanceof PDFString || b instanceof PDFHexString) return false;
  return a.toString() === b.toString();
}

function sameEntry(a: XrefEntry | undefined, b: XrefEntry): boolean {
  if (!a || a.type !== b.type) return false;
  if (a.type === 'offset' && b.type === 'offset') return a.offset === b.offset && a.generation === b.generation;
  if (a.type === 'compressed' && b.type === 'compressed') return a.streamNumber === b.streamNumber && a.index === b.index;
  return a.type === 'free';
}

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

/** The report of `changes` lines: the first MAX_CHANGES_LISTED and the count. */
function listed(level: ChangeLevel, changes: string[]): ModificationReport {
  return { level, changes: changes.slice(0, MAX_CHANGES_LISTED), changesTotal: changes.length };
}

/**
 * Object numbers the update after the revision may have changed: those listed by the sections it
 * added (§7.5.6: an update appends sections whose /Prev leads back to the revision's own); the
 * whole table when the chain does not continue the revision's, as a lenient reader must.
 */
function candidates(cur: PdfReader, old: PdfReader): Iterable<number> {
  const added = cur.xref.sections.length - old.xref.sections.length;
  const continues = added > 0 && old.xref.sections.every((s, i) => s.offset === cur.xref.sections[added + i]!.offset);
  if (!continues) {
    cur.chargeEntries(cur.xref.entries.size);
    return cur.xref.entries.keys();
  }
  const nums = new Set<number>();
  for (const section of cur.xref.sections.slice(0, added)) {
    cur.chargeEntries(section.entries.size);
    for (const num of section.entries.keys()) nums.add(num);
  }
  return nums;
}

/**
 * The changes after each signed revision of one document, each revision analysed once (the
 * same /ByteRange end, the same analysis: 2,000 fields sharing one signature took 31 s when each
 * was analysed over the whole file).
 */
export class ChangeAnalysis {
  private readonly byRevision = new Map<number, ModificationReport>();
  private whole: { catalog: { ref: PDFRef; dict: PDFDict }; lta: Set<number>; signed: Map<number, PDFDict> } | undefined;

  constructor(private readonly cur: PdfReader) {}

  analyse(revisionEnd: number): ModificationReport {
    let report = this.byRevision.get(revisionEnd);
    if (!report) {
      report = this.analyseOnce(revisionEnd);
      this.byRevision.set(revisionEnd, report);
    }
    return report;
  }

  private analyseOnce(revisionEnd: number): ModificationReport {
    const { cur } = this;
    if (revisionEnd >= cur.pdf.length) return listed('none', []);
    let old: PdfReader;
    try {
      old = cur.revision(revisionEnd);
    } catch (e) {
      if (e instanceof TooComplexError) throw e;
      return listed('other', [`the signed revision cannot be read on its own: ${(e as Error).message}`]);
    }
    // The DSS (everything under it) and the signature fields of the whole file, read once.
    this.whole ??= (() => {
      const catalog = cur.catalog();
      const lta = new Set<number>();
      reachable(cur, catalog.dict.get(PDFName.of('DSS')), lta);
      return { catalog, lta, signed: signedFieldRefs(cur, catalog.dict) };
    })();
    const { catalog } = this.whole;
    const oldCatalog = old.catalog();
    const c: Context = { cur, old, lta: new Set(this.whole.lta), form: new Set() };
    const changed: [number, XrefEntry][] = [];
    let tooMany = false;
    for (const num of candidates(cur, old)) {
      const entry = cur.xref.entries.get(num);
      if (!entry || entry.type === 'free' || sameEntry(old.xref.entries.get(num), entry)) continue;
      if (changed.length === MAX_CHANGED_OBJECTS) {
        tooMany = true;
        break;
      }
      changed.push([num, entry]);
    }
    if (tooMany) return listed('other', [`more than ${MAX_CHANGED_OBJECTS} objects changed after it: not examined one by one`]);
    // New signature fields: the field, its value and its appearance. A signed field whose object
    // is as it was in the revision was signed there already.
    const changedNums = new Set(changed.map(([num]) => num));
    for (const [num, field] of this.whole.signed) {
      if (!changedNums.has(num) || wasSigned(old, num)) continue;
      const v = cur.get(field, 'V');
      const set = v instanceof PDFDict && v.get(PDFName.of('Type')) === PDFName.of('DocTimeStamp') ? c.lta : c.form;
      set.add(num);
      reachable(cur, field.get(PDFName.of('V')), set);
      reachable(cur, field.get(PDFName.of('AP')), set);
    }
    const oldAcroForm = oldCatalog.dict.get(PDFName.of('AcroForm'));
    const changes: string[] = [];
    let level = 0;
    for (const [num, entry] of changed) {
      const prior = old.xref.entries.get(num);
      const ref = PDFRef.of(num, entry.type === 'offset' ? entry.generation : 0);
      let obj: PDFObject | undefined;
      try {
        obj = cur.getObject(ref);
      } catch (e) {
        if (e instanceof TooComplexError) throw e;
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
        const linesBefore = changes.length;
        let previous: PDFObject | undefined;
        try {
          previous = prior && prior.type !== 'free' ? old.getObject(ref) : undefined;
        } catch (e) {
          if (e instanceof TooComplexError) throw e;
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
        // A dictionary judged key by key has named its changed keys already.
        if (l === 4 && changes.length === linesBefore) changes.push(`${what} ${previous === undefined ? 'added' : 'changed'}`);
      }
      if (l >= 2 && l < 4) changes.push(`${what}: ${CHANGE_LEVELS[l]!.replace(/_/g, ' ')}`);
      level = Math.max(level, l);
    }
    return listed(CHANGE_LEVELS[level]!, changes);
  }
}

/** The field was a signed field of the revision: its object there holds a /V (§12.7.4.5). */
function wasSigned(old: PdfReader, num: number): boolean {
  try {
    const before = old.getObject(PDFRef.of(num, old.generationOf(num)));
    return before instanceof PDFDict && before.get(PDFName.of('V')) !== undefined;
  } catch (e) {
    if (e instanceof TooComplexError) throw e;
    return false;
  }
}

/** The changes after the revision ending at `revisionEnd`; one-off form of ChangeAnalysis. */
export function analyseChanges(pdf: Uint8Array, revisionEnd: number): ModificationReport {
  return new ChangeAnalysis(new PdfReader(pdf)).analyse(revisionEnd);
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
