import { PDFDict, PDFName, PDFRef, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfInputError } from '../../../../src/domain/errors';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { manyFieldsOneSignature } from '../../../helpers/hostile-pdfs';

const enc = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

/** A classic table for `offsets` (object number → offset), object 0 free. */
function table(offsets: Map<number, number>, trailer: string, at: number): string {
  const nums = [...offsets.keys()].sort((a, b) => a - b);
  let out = 'xref\n0 1\n0000000000 65535 f\r\n';
  for (const n of nums) out += `${n} 1\n${String(offsets.get(n)).padStart(10, '0')} 00000 n\r\n`;
  return `${out}trailer\n<< ${trailer} >>\nstartxref\n${at}\n%%EOF\n`;
}

describe('readers of earlier revisions (ISO 32000-1 §7.5.6)', () => {
  it('see the revision as it was signed, sharing what lies inside it', () => {
    const pdf = manyFieldsOneSignature(3);
    const cur = new PdfReader(pdf);
    const end = Buffer.from(pdf).indexOf('%%EOF', Buffer.from(pdf).indexOf('/ByteRange')) + 6;
    const old = cur.revision(end);
    expect(old.pdf.length).toBe(end);
    expect(old.xref.sections.map((s) => s.offset)).toEqual(cur.xref.sections.slice(1).map((s) => s.offset));
    // The catalog as the revision had it (one field), not the update's (four).
    const fields = (r: PdfReader) => r.getArray(r.getDict(r.catalog().dict, 'AcroForm')!, 'Fields')!.size();
    expect([fields(old), fields(cur)]).toEqual([1, 4]);
    // An object both list at the same offset is parsed once; the update's new objects are not in the revision.
    expect(old.getObject(PDFRef.of(7))).toBe(cur.getObject(PDFRef.of(7)));
    expect(old.getObject(PDFRef.of(8))).toBeUndefined();
    expect(cur.getObject(PDFRef.of(8))).toBeInstanceOf(PDFDict);
  });

  it('never reuse an object whose bytes run past the revision end', () => {
    // Revision 1 lists object 4 at a string left open; revision 2 closes it. Read whole, object
    // 4 is a string; read as revision 1, it is unreadable, whatever the whole file's reader saw.
    let text = '%PDF-1.7\n';
    const first = new Map<number, number>();
    const add = (map: Map<number, number>, n: number, body: string) => {
      map.set(n, text.length);
      text += `${n} 0 obj\n${body}`;
    };
    add(first, 1, '<< /Type /Catalog /Pages 2 0 R /X 4 0 R >>\nendobj\n');
    add(first, 2, '<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n');
    add(first, 4, '(open\n');
    const prev = text.length;
    text += table(first, '/Size 5 /Root 1 0 R', prev);
    const end = text.length;
    text += 'closed)\nendobj\n';
    const second = new Map<number, number>();
    add(second, 3, '<< /Note (revision 2) >>\nendobj\n');
    text += table(second, `/Size 5 /Root 1 0 R /Prev ${prev}`, text.length);
    const cur = new PdfReader(enc(text));
    const string = cur.getObject(PDFRef.of(4));
    expect(string).toBeInstanceOf(PDFString);
    expect((string as PDFString).asString()).toContain('%%EOF');
    const old = cur.revision(end);
    expect(old.getDict(old.catalog().dict, 'Pages')?.get(PDFName.of('Count'))?.toString()).toBe('0');
    expect(() => old.getObject(PDFRef.of(4))).toThrow(PdfInputError);
    expect(() => old.getObject(PDFRef.of(4))).toThrow('cross-reference data is broken: object 4 at byte');
  });
});
