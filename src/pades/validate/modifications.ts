/**
 * What changed after a signature, and how much (ISO 32000-1 §12.8.2.2.2 DocMDP, Table 254;
 * ETSI EN 319 142-1 §5.4 for the DSS and document timestamps). The revision the signature covers
 * is read as its own PDF (the file up to the end of its /ByteRange) and compared with the whole
 * file the way the reference validators do it:
 *
 * - like pyHanko's difference analysis, every object the later cross-reference sections list is
 *   accounted for (an update may only write what a rule explains; an object it redefines is
 *   judged by every place the document uses it, so an appearance stream a page also draws is
 *   page content), objects written again unchanged and new objects nothing uses are no change,
 *   and an object pointed back at bytes inside the signed revision is "other";
 * - like EU DSS, each change is classed by where it sits in the tree from the catalog
 *   (_diff-walk.ts) and values are compared by meaning (_pdf-equal.ts: a literal and a hex
 *   string of the same text are the same).
 *
 * The classes, lowest first:
 * 1. dss_and_timestamps (EU DSS's "extension" changes, allowed by every permission): the /DSS and
 *    its /VRI added or replaced, document timestamps (an invisible /DocTimeStamp field), /Info
 *    (ModDate, Producer), XMP /Metadata, /Extensions, /Version;
 * 2. signing_and_forms (P=2): signatures and new signature fields with their widgets, values and
 *    appearances of fields, AcroForm /DR (its fonts are resources, not annotations), /DA,
 *    /SigFlags, /NeedAppearances, /Lock and /SV, /Names (but /JavaScript), the structure tree
 *    (/StructTreeRoot, StructElem however reached, a page's /StructParents), /MarkInfo,
 *    /PieceInfo, a first /Perms or /OutputIntents;
 * 3. annotations (P=3): annotations added, changed or removed, other than widgets, and a page's
 *    /Tabs; an empty signature field that shows on a page (it draws over the content like one);
 * 4. other: pages added, removed or reordered, content streams, XObjects and fonts the pages
 *    use, a form field that is not a signature added, /Fields replaced, a signed field or its
 *    signature changed, a field or widget overwritten with something that is neither, objects
 *    redirected in the cross-reference data, the catalog's other keys.
 *
 * Bounded (issue 15): one ChangeAnalysis per document; each revision analysed once whatever
 * number of signatures ends there; only the objects the later sections list are judged, at most
 * MAX_CHANGED_OBJECTS of them; the document walked once (MAX_WALK_STEPS); at most
 * MAX_CHANGES_LISTED lines kept, with their count.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';
import { indexUsages, WalkTooLarge, type Usage } from './_diff-walk';
import { isLimit, unlessDamaged } from '../pdf';
import { sameValue } from './_pdf-equal';
import { PdfReader } from '../pdf';
import type { XrefEntry } from '../pdf';

export const CHANGE_LEVELS = ['none', 'dss_and_timestamps', 'signing_and_forms', 'annotations', 'other'] as const;
export type ChangeLevel = (typeof CHANGE_LEVELS)[number];

export interface ModificationReport {
  level: ChangeLevel;
  /**
   * One line per changed object of class 2 or above, and every reason for class 4: the first
   * MAX_CHANGES_LISTED of them (200 fields gave a 15 MB answer before issue 15). Class 1
   * changes (DSS, timestamps, metadata) are not listed.
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
 * a rewrite of the document and class 4 without looking further.
 */
export const MAX_CHANGED_OBJECTS = 10_000;

type Level = 0 | 1 | 2 | 3 | 4;
interface Verdict {
  level: Level;
  lines: string[];
}
const verdict = (level: Level, ...lines: string[]): Verdict => ({ level, lines });
const NONE = verdict(0);

/** Text of a name or string from the document, short: it goes into a report line. */
function label(v: PDFObject | undefined): string {
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

const nameOf = (d: PDFDict | undefined, key: string): string | undefined => {
  const v = d?.get(PDFName.of(key));
  return v instanceof PDFName ? v.decodeText() : undefined;
};

const dictOf = (o: PDFObject | undefined): PDFDict | undefined => (o instanceof PDFRawStream ? o.dict : o instanceof PDFDict ? o : undefined);

function sameEntry(a: XrefEntry | undefined, b: XrefEntry): boolean {
  if (!a || a.type !== b.type) return false;
  if (a.type === 'offset' && b.type === 'offset') return a.offset === b.offset && a.generation === b.generation;
  if (a.type === 'compressed' && b.type === 'compressed') return a.streamNumber === b.streamNumber && a.index === b.index;
  return a.type === 'free';
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

interface Change {
  num: number;
  kind: 'modified' | 'new' | 'freed';
  before: PDFObject | undefined;
  after: PDFObject | undefined;
  /** Why the new cross-reference entry points into the signed revision, when it does. */
  redirected: string | null;
}

/** What a form field is in the document now, against the signed revision (§12.7.4.5, §12.8). */
interface FieldClass {
  /** locked: a signature field signed in the revision; form: any other field type. */
  kind: 'locked' | 'dts' | 'signature' | 'empty-signature' | 'form';
  visible: boolean;
  name: string;
  /** §12.7.4.2: the partial names from the root down, joined with periods. */
  fullName: string;
  type: string;
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
 * The level of changes to a field (its value, appearance, widgets) by what it is: a document
 * timestamp no one sees is an extension (pyHanko clears it at LTA_UPDATES), a signature or a
 * filled form is form filling, an empty signature field on a page draws over it like an
 * annotation, a signed field is locked.
 */
function fieldLevel(c: FieldClass): Level {
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

/**
 * Keys a field or widget may change (pyHanko's VALUE_UPDATE_KEYS, §12.7.3.1 Table 220, §12.5.2
 * Table 164): the value (a choice field's selected indices /I with it, ISO 32000-2 §12.7.5.4
 * Table 234), its look and flags. A signature field also takes its /Lock and /SV
 * (§12.7.4.5 Table 232) and new widgets; a field signed in the revision only /Ff and /Type.
 * /StructParent (§14.7.4.4: its key in the structure tree's parent tree, nothing drawn) comes
 * with a structure-tree update, for any field.
 */
const FORM_KEYS = new Set(['V', 'I', 'AP', 'AS', 'F', 'DA', 'Q', 'Ff', 'Type', 'StructParent']);
const SIGNATURE_KEYS = new Set([...FORM_KEYS, 'Lock', 'SV', 'Kids']);
const LOCKED_KEYS = new Set(['Ff', 'Type', 'StructParent']);

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
/**
 * Page keys other than /Annots that a permitted update may change (§7.7.3.3 Table 31): the
 * page's key into the structure tree's parent tree, /StructParents (§14.7.5.4), with the tree
 * (class 2); the annotations' tab order, /Tabs, with the annotations (class 3).
 */
const PAGE_KEYS: Record<string, Level> = { StructParents: 2, Tabs: 3 };

/** AcroForm keys filling and signing change (§12.7.2 Table 218); /Fields is judged item by item. */
const ACROFORM_KEYS = new Set(['SigFlags', 'DR', 'DA', 'NeedAppearances', 'Q']);

/** The keys whose values differ between two dictionaries (either may be missing). */
function changedKeys(before: PDFDict | undefined, after: PDFDict | undefined): string[] {
  if (!before || !after) return [];
  const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
  return [...keys].filter((k) => !sameValue(before.get(PDFName.of(k)), after.get(PDFName.of(k))));
}

/** Items of an array as given: references by number, direct values as they are. */
function items(a: PDFObject | undefined): PDFObject[] {
  return a instanceof PDFArray ? a.asArray() : [];
}

/** One revision compared with the whole document. */
class RevisionDiff {
  private readonly changes = new Map<number, Change>();
  private readonly done = new Map<string, Verdict>();
  private readonly classes = new Map<number, FieldClass | null>();
  /** Fully qualified names of the form fields whose value or look changed (ChangeAnalysis.changedFields). */
  readonly fieldsChanged = new Set<string>();

  constructor(
    private readonly cur: PdfReader,
    private readonly old: PdfReader,
    private readonly usages: Map<number, Usage[]>,
    private readonly revisionEnd: number,
  ) {}

  /** Lists the changed objects; false when there are more than MAX_CHANGED_OBJECTS. */
  collect(): boolean {
    const { cur, old } = this;
    for (const num of candidates(cur, old)) {
      const now = cur.xref.entries.get(num);
      const before = old.xref.entries.get(num);
      if (!now || sameEntry(before, now)) continue;
      const wasInUse = before !== undefined && before.type !== 'free';
      if (now.type === 'free' && !wasInUse) continue;
      if (this.changes.size === MAX_CHANGED_OBJECTS) return false;
      const kind = now.type === 'free' ? 'freed' : wasInUse ? 'modified' : 'new';
      this.changes.set(num, { num, kind, before: undefined, after: undefined, redirected: this.redirect(now) });
    }
    return true;
  }

  /**
   * An entry of the update that points at bytes of the signed revision: the object is whatever
   * was there, a copy the signature covered under another role (the "hide" shadow attack
   * redirects an object to an older, planted definition). Writers put what they write after the
   * revision; nothing a signature permits is done this way.
   */
  private redirect(entry: XrefEntry): string | null {
    if (entry.type === 'offset' && entry.offset < this.revisionEnd) return `redirected by the cross-reference data to byte ${entry.offset}, inside the signed revision`;
    if (entry.type === 'compressed') {
      const stream = this.cur.xref.entries.get(entry.streamNumber);
      if (stream && sameEntry(this.old.xref.entries.get(entry.streamNumber), stream)) return `redirected by the cross-reference data into object stream ${entry.streamNumber} of the signed revision`;
    }
    return null;
  }

  private read(reader: PdfReader, num: number): PDFObject | undefined {
    return unlessDamaged(() => reader.getObject(PDFRef.of(num, reader.generationOf(num))));
  }

  private resolve(reader: PdfReader, v: PDFObject | undefined): PDFObject | undefined {
    return unlessDamaged(() => reader.resolve(v));
  }

  run(): { level: Level; lines: string[] } {
    const { cur, old } = this;
    let level: Level = 0;
    const lines: string[] = [];
    if (!sameValue(cur.xref.encrypt as PDFObject | undefined, old.xref.encrypt as PDFObject | undefined)) {
      level = 4;
      lines.push('the trailer: /Encrypt changed');
    }
    for (const change of [...this.changes.values()].sort((a, b) => a.num - b.num)) {
      let v: Verdict;
      try {
        v = this.judge(change);
      } catch (e) {
        if (isLimit(e)) throw e;
        v = verdict(4, `object ${change.num} changed and cannot be read: ${(e as Error).message}`);
      }
      if (v.level > level) level = v.level;
      if (v.lines.length > 0) lines.push(...v.lines);
      else if (v.level === 2 || v.level === 3) lines.push(`${this.describe(change.num, change.after ?? change.before)}: ${CHANGE_LEVELS[v.level]!.replace(/_/g, ' ')}`);
    }
    return { level, lines };
  }

  private judge(c: Change): Verdict {
    if (c.redirected) return verdict(4, `object ${c.num} ${c.redirected}`);
    if (c.kind !== 'freed') {
      c.after = this.read(this.cur, c.num);
      if (c.after === undefined) return verdict(4, `object ${c.num} changed and cannot be read where the cross-reference data puts it`);
    }
    if (c.kind !== 'new') c.before = this.read(this.old, c.num);
    // pyHanko's ignore_identical_objects: written again, the same.
    if (c.kind === 'modified' && sameValue(c.before, c.after)) return NONE;
    const uses = this.usages.get(c.num) ?? [];
    if (uses.length === 0) {
      // New objects nothing uses are no change (pyHanko's orphans; EU DSS never meets them), nor
      // an object freed that nothing uses any more; an existing object rewritten where the
      // catalog does not reach it is explained by nothing (pyHanko: every overwrite needs a rule).
      if (c.kind !== 'modified') return NONE;
      return verdict(4, `object ${c.num} changed and is not reachable from the catalog`);
    }
    let level: Level = 0;
    const lines: string[] = [];
    for (const u of uses) {
      const v = this.judgeUse(c, u);
      if (v.level > level) level = v.level;
      for (const line of v.lines) if (!lines.includes(line)) lines.push(line);
    }
    return verdict(level, ...lines);
  }

  /** A verdict reached once per revision: the same judgement asked again adds no lines. */
  private once(key: string, work: () => Verdict): Verdict {
    const known = this.done.get(key);
    if (known) return verdict(known.level);
    const v = work();
    this.done.set(key, v);
    return v;
  }

  private verb(c: Change): string {
    return c.kind === 'new' ? 'added' : c.kind === 'freed' ? 'removed' : 'changed';
  }

  private judgeUse(c: Change, u: Usage): Verdict {
    const what = this.describe(c.num, c.after ?? c.before);
    switch (u.role) {
      case 'catalog':
        return this.once('catalog', () => this.judgeCatalog());
      case 'info':
        return c.after instanceof PDFRawStream ? verdict(4, `${what}: the document information dictionary is a stream`) : verdict(1);
      case 'metadata':
      case 'dss':
      case 'extensions':
        return verdict(1);
      case 'struct':
      case 'names':
      case 'piece-info':
      case 'dr':
        return verdict(2);
      case 'perms':
      case 'output-intents':
        return c.kind === 'new' ? verdict(2) : verdict(4, `${what} ${this.verb(c)}: ${u.role === 'perms' ? 'the permissions (/Perms)' : 'the output intents'} of the signed revision`);
      case 'page-tree':
        return verdict(4, `${what} ${this.verb(c)}: the page tree (pages added, removed or reordered)`);
      case 'page':
        return this.judgePage(c);
      case 'page-content':
        return verdict(4, `${what} ${this.verb(c)}: content or resources a page draws`);
      case 'document':
        // A structure element reached from elsewhere (an outline item's /SE, ISO 32000-2 §12.3.3
        // Table 151) is still the structure tree's (§14.7.2), which signing and forms may update.
        if (nameOf(dictOf(c.after ?? c.before), 'Type') === 'StructElem') return verdict(2);
        return verdict(4, `${what} ${this.verb(c)}: part of the document no signature permission covers`);
      case 'annots':
        return this.once(`annots:${u.owner}`, () => this.judgeAnnots(u.owner));
      case 'annotation':
        return verdict(3);
      case 'field':
      case 'widget':
        return this.once(`field:${c.num}`, () => this.judgeField(c));
      case 'fields':
        return this.once(`fields:${u.owner}`, () => this.judgeFieldList(u.owner));
      case 'appearance':
      case 'lock':
        return this.ownerLevel(c, u.owner, u.role === 'lock' ? 'its /Lock or /SV' : 'its appearance');
      case 'field-value':
        return this.judgeFieldValue(c, u.owner);
      case 'acroform':
        return this.once('acroform', () => this.judgeAcroForm());
    }
  }

  /** A short name for an object in a report line. */
  private describe(num: number, obj: PDFObject | undefined): string {
    const d = dictOf(obj);
    if (d && obj instanceof PDFDict) {
      const cls = this.fieldClass(num);
      if (cls && (d.has(PDFName.of('T')) || d.has(PDFName.of('FT')))) return `field '${cls.name}' (object ${num})`;
      if (cls) return `widget of field '${cls.name}' (object ${num})`;
      if (nameOf(d, 'Type') === 'Page') return `page object ${num}`;
      const root = this.cur.xref.root;
      if (root instanceof PDFRef && num === root.objectNumber) return 'the catalog';
      const form = this.cur.catalog().dict.get(PDFName.of('AcroForm'));
      if (form instanceof PDFRef && num === form.objectNumber) return 'the AcroForm';
    }
    const type = nameOf(d, 'Subtype') ?? nameOf(d, 'Type');
    const kind = d && d.get(PDFName.of('Rect')) instanceof PDFArray && type && !(obj instanceof PDFRawStream) ? `${type} annotation` : type;
    return `object ${num}${kind ? ` (${kind})` : ''}`;
  }

  /** ISO 32000-1 §7.7.2 Table 28, key by key; only the keys the classes name may change. */
  private judgeCatalog(): Verdict {
    const before = this.old.catalog().dict;
    const after = this.cur.catalog().dict;
    let level: Level = 0;
    const lines: string[] = [];
    const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
    for (const key of keys) {
      const a = before.get(PDFName.of(key));
      const b = after.get(PDFName.of(key));
      if (sameValue(a, b)) continue;
      let l: Level;
      if (key === 'AcroForm') {
        const v = this.once('acroform', () => this.judgeAcroForm());
        lines.push(...v.lines);
        l = v.level;
      } else if (key === 'Perms' || key === 'OutputIntents') {
        l = a === undefined ? 2 : 4;
      } else if (key === 'Names' && !(b instanceof PDFRef)) {
        // A direct /Names: its /JavaScript tree is not a name a signature permits (§7.7.4).
        const js = (d: PDFObject | undefined, r: PdfReader) => (this.resolve(r, d) instanceof PDFDict ? (this.resolve(r, d) as PDFDict).get(PDFName.of('JavaScript')) : undefined);
        l = sameValue(js(a, this.old), js(b, this.cur)) ? 2 : 4;
      } else {
        l = CATALOG_KEYS[key] ?? 4;
      }
      if (l === 4 && key !== 'AcroForm') lines.push(`the catalog: /${key} changed`);
      if (l > level) level = l;
    }
    return verdict(level, ...lines);
  }

  /** §12.7.2: the AcroForm of the revision against the document's; /Fields item by item. */
  private judgeAcroForm(): Verdict {
    const oldForm = this.resolve(this.old, this.old.catalog().dict.get(PDFName.of('AcroForm')));
    const newForm = this.resolve(this.cur, this.cur.catalog().dict.get(PDFName.of('AcroForm')));
    const before = oldForm instanceof PDFDict ? oldForm : undefined;
    if (!(newForm instanceof PDFDict)) return before ? verdict(4, 'the AcroForm: removed') : NONE;
    let level: Level = 0;
    const lines: string[] = [];
    const keys = new Set([...(before?.keys() ?? []), ...newForm.keys()].map((k) => k.decodeText()));
    for (const key of keys) {
      const a = before?.get(PDFName.of(key));
      const b = newForm.get(PDFName.of(key));
      if (sameValue(a, b)) continue;
      let l: Level;
      if (key === 'Fields') {
        const v = this.once('fields:-1', () => this.judgeFieldList(-1));
        lines.push(...v.lines);
        l = v.level;
      } else if (ACROFORM_KEYS.has(key)) {
        l = 2;
      } else {
        l = 4;
        lines.push(`the AcroForm: /${key} changed`);
      }
      if (l > level) level = l;
    }
    return verdict(level, ...lines);
  }

  /**
   * A list of fields (the AcroForm's /Fields, owner -1, or the /Kids of field `owner`): none of
   * the revision's may go (a replaced /Fields is class 4); what is added is judged as a field.
   */
  private judgeFieldList(owner: number): Verdict {
    const listOf = (r: PdfReader): PDFObject | undefined => {
      if (owner === -1) {
        const form = this.resolve(r, r.catalog().dict.get(PDFName.of('AcroForm')));
        return form instanceof PDFDict ? this.resolve(r, form.get(PDFName.of('Fields'))) : undefined;
      }
      const field = dictOf(this.read(r, owner));
      return field ? this.resolve(r, field.get(PDFName.of('Kids'))) : undefined;
    };
    const where = owner === -1 ? 'the AcroForm: /Fields' : `field object ${owner}: /Kids`;
    return this.judgeList(items(listOf(this.old)), items(listOf(this.cur)), where, (item) => this.addedFieldLevel(item), () => 4);
  }

  /**
   * An old list against a new one (/Fields, /Kids, /Annots): each removed item at `removed`'s
   * level, each added one at `added`'s, a different order of the items kept at class 3 for
   * annotations (which one is drawn on top) and no change for fields.
   */
  private judgeList(before: PDFObject[], after: PDFObject[], where: string, added: (item: PDFObject) => Verdict, removed: (item: PDFObject) => Level, reorder: Level = 0): Verdict {
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

  /** A field added to a list: a new signature field (its class), anything else class 4 (pyHanko's SigFieldCreationRule). */
  private addedFieldLevel(item: PDFObject): Verdict {
    if (!(item instanceof PDFRef)) return verdict(4, 'a field written inline added');
    const change = this.changes.get(item.objectNumber);
    const cls = this.fieldClass(item.objectNumber);
    if (!cls) return verdict(4, `object ${item.objectNumber}, not a field, added to a field list`);
    if (!change || change.kind !== 'new') return verdict(4, `field '${cls.name}' (object ${item.objectNumber}), an existing object, added to a field list`);
    // The field's own judgement names it; here only its level counts.
    return verdict(this.newFieldLevel(cls));
  }

  private newFieldLevel(cls: FieldClass): Level {
    return cls.kind === 'form' || cls.kind === 'locked' ? 4 : fieldLevel(cls);
  }

  /** §7.7.3.3 Table 30: a page may only gain or lose annotations, with their tab order and its structure key (PAGE_KEYS). */
  private judgePage(c: Change): Verdict {
    const what = `page object ${c.num}`;
    if (c.kind !== 'modified') return verdict(4, `${what} ${this.verb(c)}`);
    const before = dictOf(c.before);
    const after = dictOf(c.after);
    if (!before || !after || c.after instanceof PDFRawStream) return verdict(4, `${what} changed into something that is not a page`);
    let level: Level = 0;
    const lines: string[] = [];
    const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
    for (const key of keys) {
      if (sameValue(before.get(PDFName.of(key)), after.get(PDFName.of(key)))) continue;
      if (key === 'Annots') {
        const v = this.once(`annots:${c.num}`, () => this.judgeAnnots(c.num));
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
  private judgeAnnots(page: number): Verdict {
    const annotsOf = (r: PdfReader) => {
      const d = dictOf(this.read(r, page));
      return items(d ? this.resolve(r, d.get(PDFName.of('Annots'))) : undefined);
    };
    const where = `page object ${page}: /Annots`;
    return this.judgeList(
      annotsOf(this.old),
      annotsOf(this.cur),
      where,
      (item) => this.addedAnnotLevel(item, where),
      (item) => {
        // A widget belongs to a field: removing it is not removing an annotation.
        const d = dictOf(item instanceof PDFRef ? this.read(this.old, item.objectNumber) : item);
        return nameOf(d, 'Subtype') === 'Widget' ? 4 : 3;
      },
      3,
    );
  }

  private addedAnnotLevel(item: PDFObject, where: string): Verdict {
    const d = dictOf(item instanceof PDFRef ? this.read(this.cur, item.objectNumber) : item);
    if (!d || item instanceof PDFRawStream) return verdict(4, `${where}: something that is not an annotation added`);
    if (!(item instanceof PDFRef)) return verdict(nameOf(d, 'Subtype') === 'Widget' ? 4 : 3);
    const change = this.changes.get(item.objectNumber);
    const cls = this.fieldClass(item.objectNumber);
    if (cls) {
      if (change?.kind === 'new') return verdict(this.newFieldLevel(cls));
      // An existing widget put on a page: its field's level (a signature field placed when signed).
      return verdict(cls.kind === 'form' || cls.kind === 'locked' ? 4 : fieldLevel(cls), ...(cls.kind === 'form' || cls.kind === 'locked' ? [`${where}: widget of field '${cls.name}' (object ${item.objectNumber}) added`] : []));
    }
    return verdict(d.get(PDFName.of('Subtype')) instanceof PDFName ? 3 : 4);
  }

  /**
   * A field or widget changed or added (pyHanko's SigFieldCreationRule, SigFieldModificationRule
   * and GenericFieldModificationRule): only FORM_KEYS (a signature field: SIGNATURE_KEYS) may
   * differ, a signed field's only LOCKED_KEYS; a new field must be a signature field.
   */
  private judgeField(c: Change): Verdict {
    const cls = this.fieldClass(c.num);
    const what = this.describe(c.num, c.after ?? c.before);
    if (!cls) {
      // A widget or field overwritten with something that is neither (the "hide" attack empties
      // a widget with << >>): the field loses what it showed, no permission explains it.
      const was = dictOf(c.before);
      if (was && (was.has(PDFName.of('FT')) || was.has(PDFName.of('T')) || nameOf(was, 'Subtype') === 'Widget')) return verdict(4, `object ${c.num}, a field or widget in the signed revision, ${c.kind === 'freed' ? 'removed' : 'overwritten with something that is neither'}`);
      return verdict(3);
    }
    if (cls.kind === 'form') this.fieldsChanged.add(cls.fullName);
    if (c.kind === 'freed') return verdict(4, `${what} removed`);
    if (c.kind === 'new') {
      if (cls.kind === 'form') return verdict(4, `${what} added: a form field of type ${cls.type || 'unknown'}, not a signature field`);
      if (cls.kind === 'locked') return verdict(4, `${what} added to a field signed in the revision`);
      return verdict(fieldLevel(cls));
    }
    const before = dictOf(c.before);
    const after = dictOf(c.after);
    if (!before || !after) return verdict(4, `${what} changed into something that is not a field`);
    const allowed = cls.kind === 'locked' ? LOCKED_KEYS : cls.kind === 'form' ? FORM_KEYS : SIGNATURE_KEYS;
    const lines: string[] = [];
    let kids: Verdict = NONE;
    const keys = new Set([...before.keys(), ...after.keys()].map((k) => k.decodeText()));
    for (const key of keys) {
      const a = before.get(PDFName.of(key));
      const b = after.get(PDFName.of(key));
      if (sameValue(a, b)) continue;
      if (!allowed.has(key)) lines.push(`${cls.kind === 'locked' ? 'signed ' : ''}${what}: /${key} changed`);
      else if (key === 'Kids') kids = this.once(`fields:${c.num}`, () => this.judgeFieldList(c.num));
      else if (key === 'V' && a !== undefined && cls.kind !== 'form') lines.push(`${what}: its signature /V replaced`);
    }
    if (lines.length > 0) return verdict(4, ...lines, ...kids.lines);
    // A signed field tagged for the structure tree (/StructParent) changes with the tree, class 2.
    if (cls.kind === 'locked') return verdict(sameValue(before.get(PDFName.of('StructParent')), after.get(PDFName.of('StructParent'))) ? 1 : 2);
    const level = fieldLevel(cls);
    return verdict(kids.level > level ? kids.level : level, ...kids.lines);
  }

  /**
   * The value of field `owner`: for a signature field the signature dictionary, new with the
   * signature (its field's class); an existing one changed is a signature rewritten (class 4).
   */
  private judgeFieldValue(c: Change, owner: number): Verdict {
    const cls = this.fieldClass(owner);
    if (cls?.kind === 'form') this.fieldsChanged.add(cls.fullName);
    if (!cls || cls.kind === 'form') return verdict(cls ? 2 : 3);
    if (cls.kind === 'locked' || c.kind !== 'new') {
      // EU DSS names the keys of an undefined change: a /Reason or /M replaced after signing is the spoofing it shows.
      const keys = changedKeys(dictOf(c.before), dictOf(c.after));
      return verdict(4, `${this.describe(c.num, c.after ?? c.before)} ${this.verb(c)}: the signature of field '${cls.name}'${keys.length > 0 ? ` (${keys.map((k) => `/${k}`).join(', ')} changed)` : ''}`);
    }
    return verdict(fieldLevel(cls));
  }

  /** What hangs from an annotation or field (`owner`) is judged as that owner's change. */
  private ownerLevel(c: Change, owner: number, part: string): Verdict {
    const cls = this.fieldClass(owner);
    if (cls?.kind === 'form') this.fieldsChanged.add(cls.fullName);
    if (!cls) return verdict(3);
    if (cls.kind === 'locked') return verdict(4, `${this.describe(c.num, c.after ?? c.before)} ${this.verb(c)}: ${part} of field '${cls.name}', signed in the revision`);
    return verdict(fieldLevel(cls));
  }

  /**
   * What the field (or widget) `num` is: its type inherited through /Parent (§12.7.3.1), the
   * terminal field holding /V, whether that was signed in the revision, whether it shows.
   * Null for an object that is not a field or widget.
   */
  private fieldClass(num: number): FieldClass | null {
    if (this.classes.has(num)) return this.classes.get(num)!;
    const self = this.read(this.cur, num);
    let result: FieldClass | null = null;
    if (self instanceof PDFDict && (self.has(PDFName.of('FT')) || self.has(PDFName.of('T')) || nameOf(self, 'Subtype') === 'Widget')) {
      // The chain from the object up through /Parent, with object numbers (bounded: §12.7.3.1 trees are shallow).
      const chain: { num: number; dict: PDFDict }[] = [{ num, dict: self }];
      for (let i = 0; i < 32; i++) {
        const up = chain[chain.length - 1]!.dict.get(PDFName.of('Parent'));
        const parent = up instanceof PDFRef ? this.read(this.cur, up.objectNumber) : undefined;
        if (!(up instanceof PDFRef) || !(parent instanceof PDFDict) || chain.some((x) => x.num === up.objectNumber)) break;
        chain.push({ num: up.objectNumber, dict: parent });
      }
      const type = chain.map((x) => nameOf(x.dict, 'FT')).find((t) => t !== undefined) ?? '';
      const field = chain.find((x) => x.dict.has(PDFName.of('T')) || x.dict.has(PDFName.of('V'))) ?? chain[0]!;
      const widgets = field.dict.has(PDFName.of('Rect')) ? [field.dict] : items(this.resolve(this.cur, field.dict.get(PDFName.of('Kids')))).map((k) => dictOf(this.resolve(this.cur, k)));
      const visible = showsOnPage(self) || widgets.some(showsOnPage);
      const name = label(field.dict.get(PDFName.of('T')));
      const fullName = chain.slice(chain.indexOf(field)).map((x) => label(x.dict.get(PDFName.of('T')))).filter((t) => t !== '').reverse().join('.');
      if (type !== 'Sig') {
        if (type !== '' || !nameOf(self, 'Subtype') || nameOf(self, 'Subtype') === 'Widget') result = { kind: 'form', visible, name, fullName, type: type ? `/${type}` : '' };
      } else {
        const signedBefore = dictOf(this.read(this.old, field.num))?.has(PDFName.of('V')) === true && this.old.xref.entries.get(field.num)?.type !== 'free';
        const v = dictOf(this.resolve(this.cur, field.dict.get(PDFName.of('V'))));
        const kind = signedBefore ? 'locked' : !v ? 'empty-signature' : nameOf(v, 'Type') === 'DocTimeStamp' || nameOf(v, 'SubFilter') === 'ETSI.RFC3161' ? 'dts' : 'signature';
        result = { kind, visible, name, fullName, type: '/Sig' };
      }
    }
    this.classes.set(num, result);
    return result;
  }
}

/**
 * The changes after each signed revision of one document, each revision analysed once (the
 * same /ByteRange end, the same analysis: 2,000 fields sharing one signature took 31 s when each
 * was analysed over the whole file), the document walked once for all of them.
 */
export class ChangeAnalysis {
  private readonly byRevision = new Map<number, ModificationReport>();
  private readonly fieldsByRevision = new Map<number, string[]>();
  private usages: Map<number, Usage[]> | Error | undefined;

  constructor(private readonly cur: PdfReader) {}

  /**
   * The fully qualified names of the form fields (not signature fields) whose value, selection or
   * appearance changed, or that were removed, after the revision ending at `revisionEnd`: what a
   * FieldMDP lock (ISO 32000-2 §12.8.2.4) judges. Known once `analyse` ran for that revision.
   */
  changedFields(revisionEnd: number): string[] {
    return this.fieldsByRevision.get(revisionEnd) ?? [];
  }

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
    if (revisionEnd >= cur.pdf.length) return listed(0, []);
    let old: PdfReader;
    try {
      old = cur.revision(revisionEnd);
    } catch (e) {
      if (isLimit(e)) throw e;
      return listed(4, [`the signed revision cannot be read on its own: ${(e as Error).message}`]);
    }
    if (this.usages === undefined) {
      try {
        this.usages = indexUsages(cur);
      } catch (e) {
        if (!(e instanceof WalkTooLarge)) throw e;
        this.usages = e;
      }
    }
    if (this.usages instanceof Error) return listed(4, [`the document is too large to follow every change after it: ${this.usages.message}`]);
    const diff = new RevisionDiff(cur, old, this.usages, revisionEnd);
    if (!diff.collect()) return listed(4, [`more than ${MAX_CHANGED_OBJECTS} objects changed after it: not examined one by one`]);
    const { level, lines } = diff.run();
    this.fieldsByRevision.set(revisionEnd, [...diff.fieldsChanged]);
    return listed(level, lines);
  }
}

/** The report of `changes` lines: the first MAX_CHANGES_LISTED and the count. */
function listed(level: Level, changes: string[]): ModificationReport {
  return { level: CHANGE_LEVELS[level]!, changes: changes.slice(0, MAX_CHANGES_LISTED), changesTotal: changes.length };
}

/** The changes after the revision ending at `revisionEnd`; one-off form of ChangeAnalysis. */
export function analyseChanges(pdf: Uint8Array, revisionEnd: number): ModificationReport {
  return new ChangeAnalysis(new PdfReader(pdf)).analyse(revisionEnd);
}

/**
 * ISO 32000-1 Table 254 (P 1: none, 2: form filling and signing, 3: also annotations), DSS and
 * document timestamps permitted at every level (ETSI EN 319 142-1 §5.4); without a certification
 * only changes no class explains are refused.
 */
export function changesAllowed(level: ChangeLevel, permission: null | 1 | 2 | 3): boolean {
  const n = CHANGE_LEVELS.indexOf(level);
  return n < 4 && (permission === null || n <= permission);
}
