/**
 * Signing and form filling (class 2, DocMDP P=2, ISO 32000-1 §12.8.2.2.2 Table 254): the
 * AcroForm (§12.7.2), its field lists, and each field, widget, value, appearance and lock, judged
 * by what the field is (_field-class.ts). Like pyHanko's SigFieldCreationRule,
 * SigFieldModificationRule and GenericFieldModificationRule: an update may add signature fields,
 * fill values and change their look; a field signed in the revision stays as it was.
 */
import { PDFDict, PDFName, PDFRef, type PDFObject } from 'pdf-lib';
import type { PdfReader } from '../pdf';
import { fieldLevel, isFieldOrWidget, newFieldLevel } from './_field-class';
import { sameValue } from './_pdf-equal';
import { changedKeys, dictOf, items, judgeList, NONE, verbOf, verdict, type Change, type DiffView, type Level, type Verdict } from './_verdict';

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

/** AcroForm keys filling and signing change (§12.7.2 Table 218); /Fields is judged item by item. */
const ACROFORM_KEYS = new Set(['SigFlags', 'DR', 'DA', 'NeedAppearances', 'Q']);

/** §12.7.2: the AcroForm of the revision against the document's; /Fields item by item. */
export function judgeAcroForm(d: DiffView): Verdict {
  const oldForm = d.resolve(d.old, d.old.catalog().dict.get(PDFName.of('AcroForm')));
  const newForm = d.resolve(d.cur, d.cur.catalog().dict.get(PDFName.of('AcroForm')));
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
      const v = d.once('fields:-1', () => judgeFieldList(d, -1));
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
export function judgeFieldList(d: DiffView, owner: number): Verdict {
  const listOf = (r: PdfReader): PDFObject | undefined => {
    if (owner === -1) {
      const form = d.resolve(r, r.catalog().dict.get(PDFName.of('AcroForm')));
      return form instanceof PDFDict ? d.resolve(r, form.get(PDFName.of('Fields'))) : undefined;
    }
    const field = dictOf(d.read(r, owner));
    return field ? d.resolve(r, field.get(PDFName.of('Kids'))) : undefined;
  };
  const where = owner === -1 ? 'the AcroForm: /Fields' : `field object ${owner}: /Kids`;
  return judgeList(items(listOf(d.old)), items(listOf(d.cur)), where, (item) => addedField(d, item), () => 4);
}

/** A field added to a list: a new signature field (its class), anything else class 4 (pyHanko's SigFieldCreationRule). */
function addedField(d: DiffView, item: PDFObject): Verdict {
  if (!(item instanceof PDFRef)) return verdict(4, 'a field written inline added');
  const change = d.changes.get(item.objectNumber);
  const cls = d.fieldClass(item.objectNumber);
  if (!cls) return verdict(4, `object ${item.objectNumber}, not a field, added to a field list`);
  if (!change || change.kind !== 'new') return verdict(4, `field '${cls.name}' (object ${item.objectNumber}), an existing object, added to a field list`);
  // The field's own judgement names it; here only its level counts.
  return verdict(newFieldLevel(cls));
}

/**
 * A field or widget changed or added (pyHanko's SigFieldCreationRule, SigFieldModificationRule
 * and GenericFieldModificationRule): only FORM_KEYS (a signature field: SIGNATURE_KEYS) may
 * differ, a signed field's only LOCKED_KEYS; a new field must be a signature field.
 */
export function judgeField(d: DiffView, c: Change): Verdict {
  const cls = d.fieldClass(c.num);
  const what = d.describe(c.num, c.after ?? c.before);
  if (!cls) {
    // A widget or field overwritten with something that is neither (the "hide" attack empties
    // a widget with << >>): the field loses what it showed, no permission explains it.
    const was = dictOf(c.before);
    if (was && isFieldOrWidget(was)) return verdict(4, `object ${c.num}, a field or widget in the signed revision, ${c.kind === 'freed' ? 'removed' : 'overwritten with something that is neither'}`);
    return verdict(3);
  }
  if (cls.kind === 'form') d.fieldsChanged.add(cls.fullName);
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
    else if (key === 'Kids') kids = d.once(`fields:${c.num}`, () => judgeFieldList(d, c.num));
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
export function judgeFieldValue(d: DiffView, c: Change, owner: number): Verdict {
  const cls = d.fieldClass(owner);
  if (cls?.kind === 'form') d.fieldsChanged.add(cls.fullName);
  if (!cls || cls.kind === 'form') return verdict(cls ? 2 : 3);
  if (cls.kind === 'locked' || c.kind !== 'new') {
    // EU DSS names the keys of an undefined change: a /Reason or /M replaced after signing is the spoofing it shows.
    const keys = changedKeys(dictOf(c.before), dictOf(c.after));
    return verdict(4, `${d.describe(c.num, c.after ?? c.before)} ${verbOf(c)}: the signature of field '${cls.name}'${keys.length > 0 ? ` (${keys.map((k) => `/${k}`).join(', ')} changed)` : ''}`);
  }
  return verdict(fieldLevel(cls));
}

/** What hangs from an annotation or field (`owner`: its appearance, its /Lock) is judged as that owner's change. */
export function judgeFieldPart(d: DiffView, c: Change, owner: number, part: string): Verdict {
  const cls = d.fieldClass(owner);
  if (cls?.kind === 'form') d.fieldsChanged.add(cls.fullName);
  if (!cls) return verdict(3);
  if (cls.kind === 'locked') return verdict(4, `${d.describe(c.num, c.after ?? c.before)} ${verbOf(c)}: ${part} of field '${cls.name}', signed in the revision`);
  return verdict(fieldLevel(cls));
}
