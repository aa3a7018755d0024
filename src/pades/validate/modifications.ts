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
 * The objects an update wrote are listed by _changed-objects.ts and judged one by one by
 * _revision-diff.ts, which hands each to the classifier of the part it belongs to.
 *
 * The classes, lowest first:
 * 1. dss_and_timestamps (EU DSS's "extension" changes, allowed by every permission): the /DSS and
 *    its /VRI added or replaced (_catalog-changes.ts), document timestamps (an invisible
 *    /DocTimeStamp field: _field-class.ts), /Info (ModDate, Producer), XMP /Metadata,
 *    /Extensions, /Version;
 * 2. signing_and_forms (P=2, _form-changes.ts): signatures and new signature fields with their
 *    widgets, values and appearances of fields, AcroForm /DR (its fonts are resources, not
 *    annotations), /DA, /SigFlags, /NeedAppearances, /Lock and /SV, /Names (but /JavaScript), the
 *    structure tree (/StructTreeRoot, StructElem however reached, a page's /StructParents),
 *    /MarkInfo, /PieceInfo, a first /Perms or /OutputIntents;
 * 3. annotations (P=3, _page-changes.ts): annotations added, changed or removed, other than
 *    widgets, and a page's /Tabs; an empty signature field that shows on a page (it draws over
 *    the content like one);
 * 4. other: pages added, removed or reordered, content streams, XObjects and fonts the pages
 *    use, a form field that is not a signature added, /Fields replaced, a signed field or its
 *    signature changed, a field or widget overwritten with something that is neither, objects
 *    redirected in the cross-reference data, the catalog's other keys.
 *
 * Bounded: one ChangeAnalysis per document; each revision analysed once whatever
 * number of signatures ends there; only the objects the later sections list are judged, at most
 * MAX_CHANGED_OBJECTS of them; the document walked once (MAX_WALK_STEPS); at most
 * MAX_CHANGES_LISTED lines kept, with their count.
 */
import { isLimit, PdfReader } from '../pdf';
import { MAX_CHANGED_OBJECTS, changedObjects } from './_changed-objects';
import { indexUsages, WalkTooLarge, type Usage } from './_diff-walk';
import { RevisionDiff } from './_revision-diff';
import { CHANGE_LEVELS, type ChangeLevel, type Level } from './_verdict';

export { CHANGE_LEVELS, type ChangeLevel } from './_verdict';
export { MAX_CHANGED_OBJECTS } from './_changed-objects';

export interface ModificationReport {
  level: ChangeLevel;
  /**
   * One line per changed object of class 2 or above, and every reason for class 4: the first
   * MAX_CHANGES_LISTED of them (200 fields gave a 15 MB answer unbounded). Class 1
   * changes (DSS, timestamps, metadata) are not listed.
   */
  changes: string[];
  /** How many lines there were; more than `changes.length` when some were left out. */
  changesTotal: number;
}

/** Lines kept per signature: enough to see what kind of change it was, never the whole file. */
export const MAX_CHANGES_LISTED = 50;

/**
 * The changes after each signed revision of one document, each revision analysed once (the same
 * /ByteRange end, the same analysis: 2,000 fields sharing one signature took 31 s on a 2-core
 * machine when each was analysed over the whole file), the document walked once for all of them.
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
    const changes = changedObjects(cur, old, revisionEnd);
    if (!changes) return listed(4, [`more than ${MAX_CHANGED_OBJECTS} objects changed after it: not examined one by one`]);
    const diff = new RevisionDiff(cur, old, this.usages, changes);
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
