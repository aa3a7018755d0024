/**
 * The words the change classifiers share (modifications.ts lists the classes): a changed object,
 * a verdict on it, what a form field is, and what a classifier may ask of the revision pair it
 * judges (RevisionDiff, _revision-diff.ts); with the small readers of PDF values they all use.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';
import type { PdfReader } from '../pdf';
import { sameValue } from './_pdf-equal';

export const CHANGE_LEVELS = ['none', 'dss_and_timestamps', 'signing_and_forms', 'annotations', 'other'] as const;
export type ChangeLevel = (typeof CHANGE_LEVELS)[number];
/** A class of change as its index in CHANGE_LEVELS. */
export type Level = 0 | 1 | 2 | 3 | 4;
export interface Verdict {
  level: Level;
  lines: string[];
}
export const verdict = (level: Level, ...lines: string[]): Verdict => ({ level, lines });
export const NONE = verdict(0);

/** An object the update wrote (_changed-objects.ts), with its values once judged. */
export interface Change {
  num: number;
  kind: 'modified' | 'new' | 'freed';
  before: PDFObject | undefined;
  after: PDFObject | undefined;
  /** Why the new cross-reference entry points into the signed revision, when it does. */
  redirected: string | null;
}

export function verbOf(c: Change): string {
  return c.kind === 'new' ? 'added' : c.kind === 'freed' ? 'removed' : 'changed';
}

/** What a form field is in the document now, against the signed revision (§12.7.4.5, §12.8). */
export interface FieldClass {
  /** locked: a signature field signed in the revision; form: any other field type. */
  kind: 'locked' | 'dts' | 'signature' | 'empty-signature' | 'form';
  visible: boolean;
  name: string;
  /** §12.7.4.2: the partial names from the root down, joined with periods. */
  fullName: string;
  type: string;
}

/** The signed revision against the document, as the classifiers of each part read it. */
export interface DiffView {
  readonly cur: PdfReader;
  readonly old: PdfReader;
  readonly changes: ReadonlyMap<number, Change>;
  /** Fully qualified names of the form fields whose value or look changed (ChangeAnalysis.changedFields). */
  readonly fieldsChanged: Set<string>;
  read(reader: PdfReader, num: number): PDFObject | undefined;
  resolve(reader: PdfReader, v: PDFObject | undefined): PDFObject | undefined;
  /** A verdict reached once per revision: the same judgement asked again adds no lines. */
  once(key: string, work: () => Verdict): Verdict;
  /** A short name for an object in a report line. */
  describe(num: number, obj: PDFObject | undefined): string;
  /** What the field (or widget) `num` is; null for an object that is neither (_field-class.ts). */
  fieldClass(num: number): FieldClass | null;
}

/** Text of a name or string from the document, short: it goes into a report line. */
export function label(v: PDFObject | undefined): string {
  let s = '';
  if (v instanceof PDFString || v instanceof PDFHexString) {
    try {
      s = v.decodeText();
    } catch {
      s = v.asString();
    }
  } else if (v instanceof PDFName) {
    s = v.decodeText();
  }
  s = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

export const nameOf = (d: PDFDict | undefined, key: string): string | undefined => {
  const v = d?.get(PDFName.of(key));
  return v instanceof PDFName ? v.decodeText() : undefined;
};

export const dictOf = (o: PDFObject | undefined): PDFDict | undefined => (o instanceof PDFRawStream ? o.dict : o instanceof PDFDict ? o : undefined);

/** Items of an array as given: references by number, direct values as they are. */
export function items(a: PDFObject | undefined): PDFObject[] {
  return a instanceof PDFArray ? a.asArray() : [];
}

/** The keys whose values differ between two dictionaries (either may be missing). */
export function changedKeys(before: PDFDict | undefined, after: PDFDict | undefined): string[] {
  if (!before || !after) return [];
  const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
  return [...keys].filter((k) => !sameValue(before.get(PDFName.of(k)), after.get(PDFName.of(k))));
}

/**
 * An old list against a new one (/Fields, /Kids, /Annots): each removed item at `removed`'s
 * level, each added one at `added`'s, a different order of the items kept at class 3 for
 * annotations (which one is drawn on top) and no change for fields.
 */
export function judgeList(before: PDFObject[], after: PDFObject[], where: string, added: (item: PDFObject) => Verdict, removed: (item: PDFObject) => Level, reorder: Level = 0): Verdict {
  let level: Level = 0;
  const lines: string[] = [];
  const raise = (l: Level) => {
    if (l > level) level = l;
  };
  const key = (o: PDFObject) => (o instanceof PDFRef ? `r${o.objectNumber}` : null);
  const newKeys = new Set(after.map(key).filter((k) => k !== null));
  const oldKeys = new Set(before.map(key).filter((k) => k !== null));
  for (const item of before) {
    const k = key(item);
    if (k ? newKeys.has(k) : after.some((x) => sameValue(x, item))) continue;
    const l = removed(item);
    raise(l);
    if (l === 4) lines.push(`${where}: ${item instanceof PDFRef ? `object ${item.objectNumber}` : 'an item'} removed`);
  }
  for (const item of after) {
    const k = key(item);
    if (k ? oldKeys.has(k) : before.some((x) => sameValue(x, item))) continue;
    const v = added(item);
    raise(v.level);
    lines.push(...v.lines);
  }
  const keptBefore = before.map(key).filter((k) => k !== null && newKeys.has(k));
  const keptAfter = after.map(key).filter((k) => k !== null && oldKeys.has(k));
  if (keptBefore.join() !== keptAfter.join()) raise(reorder);
  return verdict(level, ...lines);
}
