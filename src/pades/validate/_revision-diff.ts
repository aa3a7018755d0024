/**
 * One signed revision compared with the whole document: each changed object (_changed-objects.ts)
 * judged by every role the walk from the catalog gives it (_diff-walk.ts), the highest class
 * winning, with the lines that say why. Which role is judged where is the switch in judgeUse:
 * the catalog (_catalog-changes.ts), forms and signatures (_form-changes.ts), pages and
 * annotations (_page-changes.ts); the roles whose class their place alone decides are judged there.
 */
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFObject } from 'pdf-lib';
import { isLimit, unlessDamaged, type PdfReader } from '../pdf';
import { judgeCatalog } from './_catalog-changes';
import type { Usage } from './_diff-walk';
import { classifyField } from './_field-class';
import { judgeAcroForm, judgeField, judgeFieldList, judgeFieldPart, judgeFieldValue } from './_form-changes';
import { judgeAnnots, judgePage } from './_page-changes';
import { sameValue } from './_pdf-equal';
import { CHANGE_LEVELS, dictOf, nameOf, NONE, verbOf, verdict, type Change, type DiffView, type FieldClass, type Level, type Verdict } from './_verdict';

export class RevisionDiff implements DiffView {
  private readonly done = new Map<string, Verdict>();
  private readonly classes = new Map<number, FieldClass | null>();
  readonly fieldsChanged = new Set<string>();

  constructor(
    readonly cur: PdfReader,
    readonly old: PdfReader,
    private readonly usages: Map<number, Usage[]>,
    readonly changes: ReadonlyMap<number, Change>,
  ) {}

  read(reader: PdfReader, num: number): PDFObject | undefined {
    return unlessDamaged(() => reader.getObject(PDFRef.of(num, reader.generationOf(num))));
  }

  resolve(reader: PdfReader, v: PDFObject | undefined): PDFObject | undefined {
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

  once(key: string, work: () => Verdict): Verdict {
    const known = this.done.get(key);
    if (known) return verdict(known.level);
    const v = work();
    this.done.set(key, v);
    return v;
  }

  private judgeUse(c: Change, u: Usage): Verdict {
    const what = this.describe(c.num, c.after ?? c.before);
    switch (u.role) {
      case 'catalog':
        return this.once('catalog', () => judgeCatalog(this));
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
        return c.kind === 'new' ? verdict(2) : verdict(4, `${what} ${verbOf(c)}: ${u.role === 'perms' ? 'the permissions (/Perms)' : 'the output intents'} of the signed revision`);
      case 'page-tree':
        return verdict(4, `${what} ${verbOf(c)}: the page tree (pages added, removed or reordered)`);
      case 'page':
        return judgePage(this, c);
      case 'page-content':
        return verdict(4, `${what} ${verbOf(c)}: content or resources a page draws`);
      case 'document':
        // A structure element reached from elsewhere (an outline item's /SE, ISO 32000-2 §12.3.3
        // Table 151) is still the structure tree's (§14.7.2), which signing and forms may update.
        if (nameOf(dictOf(c.after ?? c.before), 'Type') === 'StructElem') return verdict(2);
        return verdict(4, `${what} ${verbOf(c)}: part of the document no signature permission covers`);
      case 'annots':
        return this.once(`annots:${u.owner}`, () => judgeAnnots(this, u.owner));
      case 'annotation':
        return verdict(3);
      case 'field':
      case 'widget':
        return this.once(`field:${c.num}`, () => judgeField(this, c));
      case 'fields':
        return this.once(`fields:${u.owner}`, () => judgeFieldList(this, u.owner));
      case 'appearance':
      case 'lock':
        return judgeFieldPart(this, c, u.owner, u.role === 'lock' ? 'its /Lock or /SV' : 'its appearance');
      case 'field-value':
        return judgeFieldValue(this, c, u.owner);
      case 'acroform':
        return this.once('acroform', () => judgeAcroForm(this));
    }
  }

  describe(num: number, obj: PDFObject | undefined): string {
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

  fieldClass(num: number): FieldClass | null {
    if (this.classes.has(num)) return this.classes.get(num)!;
    const result = classifyField(this, num);
    this.classes.set(num, result);
    return result;
  }
}
