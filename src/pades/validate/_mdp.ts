/**
 * What a signature dictionary's signature references say about later changes (ISO 32000-2
 * §12.8.2, Table 256): a DocMDP transform makes it the certification signature with its /P
 * (Table 257; 2 when absent), a FieldMDP transform locks form fields (Table 258: /Action /All,
 * /Include or /Exclude with /Fields). Only the first signature of a document may certify it
 * (§12.8.2.2.1); the field locks of every signature hold.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString, type PDFObject } from 'pdf-lib';
import type { PdfReader } from '../pdf';

export interface FieldLock {
  action: 'All' | 'Include' | 'Exclude';
  /** Fully qualified field names (§12.7.4.2). */
  fields: string[];
}

/**
 * The access permission a signature field's /Lock sets for the document once signed (ISO 32000-2
 * §12.7.5.5 Table 236, /P, PDF 2.0: 1, 2 or 3 as DocMDP's), or null.
 */
export function lockPermissionOf(reader: PdfReader, field: PDFDict | undefined): null | 1 | 2 | 3 {
  const lock = field && reader.getDict(field, 'Lock');
  const p = lock && reader.getNumber(lock, 'P');
  return p === 1 || p === 2 || p === 3 ? p : null;
}

export interface Transforms {
  docMdp: null | 1 | 2 | 3;
  fieldLocks: FieldLock[];
}

const text = (o: PDFObject | undefined): string | null => (o instanceof PDFString || o instanceof PDFHexString ? o.decodeText() : null);

/** /Action and /Fields, as FieldMDP's TransformParams (Table 258) and a SigFieldLock (Table 236) both write them; null for another action. */
function lockIn(reader: PdfReader, dict: PDFDict | undefined): FieldLock | null {
  const action = dict && reader.get(dict, 'Action');
  const name = action instanceof PDFName ? action.decodeText() : '';
  if (!dict || (name !== 'All' && name !== 'Include' && name !== 'Exclude')) return null;
  const fields = reader.get(dict, 'Fields');
  return { action: name, fields: fields instanceof PDFArray ? fields.asArray().map((f) => text(reader.resolve(f))).filter((f): f is string => f !== null) : [] };
}

/** The DocMDP and FieldMDP transforms of signature dictionary `sig`. */
export function transformsOf(reader: PdfReader, sig: PDFDict): Transforms {
  const out: Transforms = { docMdp: null, fieldLocks: [] };
  for (const item of reader.getArray(sig, 'Reference')?.asArray() ?? []) {
    const ref = reader.resolve(item);
    if (!(ref instanceof PDFDict)) continue;
    const method = reader.get(ref, 'TransformMethod');
    const params = reader.getDict(ref, 'TransformParams');
    if (method === PDFName.of('DocMDP') && out.docMdp === null) {
      const p = params && reader.getNumber(params, 'P');
      out.docMdp = p === 1 || p === 3 ? p : 2;
    } else if (method === PDFName.of('FieldMDP')) {
      const lock = lockIn(reader, params);
      if (lock) out.fieldLocks.push(lock);
    }
  }
  return out;
}

/** A signature field's /Lock (ISO 32000-2 §12.7.5.5 Table 236): the fields its signing locks. */
export function fieldLockOf(reader: PdfReader, field: PDFDict | undefined): FieldLock[] {
  const lock = lockIn(reader, field && reader.getDict(field, 'Lock'));
  return lock ? [lock] : [];
}

/** §12.7.4.2: a lock naming a field covers its descendants too. */
const covers = (names: string[], field: string): boolean => names.some((n) => field === n || field.startsWith(`${n}.`));

/** The changed fields (ChangeAnalysis.changedFields) that `locks` forbid to change. */
export function lockedChanges(locks: FieldLock[], changed: string[]): string[] {
  return changed.filter((f) => locks.some((l) => l.action === 'All' || (l.action === 'Include' ? covers(l.fields, f) : !covers(l.fields, f))));
}
