/**
 * Each signature bound to its own field (issue 17, ISO 32000-1 §12.8.1): the signature value is
 * the signature dictionary's own /Contents, and its /ByteRange skips exactly that string, of that
 * object, where the cross-reference data puts it. A two-signature PDF signed by the engine, then
 * the second dictionary given the first one's /ByteRange (patched in place, or by a hand-written
 * incremental update), or the first one's /ByteRange and /Contents together (a signature borrowed
 * by another field with a /Reason of the attacker's choosing). pdfsig reads each dictionary's
 * own /Contents too; where it judges, it agrees; the borrowed one it calls valid, localsign does
 * not. One signature dictionary used by two fields stays one signature, both fields named.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFContext, PDFRef } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfReader } from '../../../src/pades/pdf/pdf-reader';
import { contentsSpan } from '../../../src/pades/pdf/signature-span';
import { validatePdf } from '../../../src/pades/validate/validate';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { CORPUS_DIR, signWithEngine } from '../../helpers/pdf-corpus';
import { addToList, appendRevision, firstRevision, nextObjectNumber, objectText, offsetOf } from '../../helpers/pdf-revisions';
import { runPdfsig } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let pki: TestPki;
let dir: string;
let twice: Uint8Array;
/** Object numbers of the two signature dictionaries, in file order. */
let sigs: [number, number];

interface CliSignature {
  valid: boolean;
  field: string;
  fields: string[];
  digest_valid: boolean;
  byte_range: number[];
  problems: string[];
  changes_after: { level: string; allowed: boolean };
}

beforeAll(async () => {
  dir = tempDir('localsign-binding-');
  pki = await createTestPki({ algorithm: 'rsa', signerCn: 'Binding Signer' });
  const input = new Uint8Array(readFileSync(join(CORPUS_DIR, 'pdflib-xref-table.pdf')));
  const once = (await signWithEngine(input, { ...pki, algorithm: 'rsa' })).output;
  twice = (await signWithEngine(once, { ...pki, algorithm: 'rsa' })).output;
  const reader = new PdfReader(twice);
  const found: number[] = [];
  for (const [num] of reader.xref.entries) {
    const obj = reader.getObject(PDFRef.of(num));
    if (obj && /\/Type \/Sig\b/.test(obj.toString())) found.push(num);
  }
  found.sort((a, b) => offsetOf(twice, a) - offsetOf(twice, b));
  expect(found).toHaveLength(2);
  sigs = [found[0]!, found[1]!];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The /ByteRange text of signature dictionary `num`, as written ([a b c d] padded with spaces). */
function byteRangeText(pdf: Uint8Array, num: number): { at: number; text: string } {
  const at = offsetOf(pdf, num);
  const s = Buffer.from(pdf).toString('latin1');
  const m = /\/ByteRange\s*(\[[^\]]*\])/.exec(s.slice(at, at + 400))!;
  return { at: at + m.index + m[0].length - m[1]!.length, text: m[1]! };
}

async function verify(pdf: Uint8Array, name: string): Promise<{ cli: CliSignature[]; pdfsig: boolean[] }> {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  // No revocation data in these documents: what is judged is the binding, so its absence is let pass.
  const [r, pdfsig] = await Promise.all([runCliAsync(['verify', file, '--json', '--trust', pki.caCertPath, '--revocation', 'if-available'], { home: dir }), runPdfsig(file)]);
  return { cli: parseJson<{ signatures: CliSignature[] }>(r).signatures, pdfsig: pdfsig.signatures.filter((s) => s.signed).map((s) => s.signatureValid) };
}

describe('the /ByteRange of the first signature in the second signature dictionary', () => {
  it('as found: both signatures valid, each bound (localsign and pdfsig)', async () => {
    const { cli, pdfsig } = await verify(twice, 'twice');
    expect(cli.map((s) => [s.valid, s.digest_valid])).toEqual([[true, true], [true, true]]);
    expect(pdfsig).toEqual([true, true]);
  });

  it('patched in place: the second is invalid, not bound to its field, its digest wrong (pdfsig: Digest Mismatch); the first stays valid', async () => {
    const first = byteRangeText(twice, sigs[0]);
    const second = byteRangeText(twice, sigs[1]);
    expect(first.text.length).toBeLessThanOrEqual(second.text.length);
    const patched = Buffer.from(twice);
    patched.write(first.text.slice(0, -1).padEnd(second.text.length - 1, ' ') + ']', second.at, 'latin1');
    const { cli, pdfsig } = await verify(new Uint8Array(patched), 'patched');
    expect(pdfsig).toEqual([true, false]);
    expect(cli.map((s) => [s.valid, s.digest_valid])).toEqual([[true, true], [false, false]]);
    expect(cli[1]!.byte_range).toEqual(cli[0]!.byte_range);
    const bound = cli[1]!.problems.find((p) => p.includes('not bound to its field'));
    expect(bound).toMatch(new RegExp(`^the /ByteRange skips bytes ${cli[0]!.byte_range[1]} to ${cli[0]!.byte_range[2]}, not this signature dictionary's own /Contents \\(bytes \\d+ to \\d+ of object ${sigs[1]}\\): the signature is not bound to its field$`));
    expect(cli[1]!.problems).toContain('the document digest does not match: the signed bytes were changed');
  });

  it('by a hand-written incremental update rewriting the second dictionary: the second invalid (pdfsig: Digest Mismatch); the first judges the update', async () => {
    const first = byteRangeText(twice, sigs[0]);
    const dict = objectText(twice, sigs[1]).replace(/\/ByteRange \[[^\]]*\]/, `/ByteRange ${first.text.replace(/\s+/g, ' ').replace(' ]', ']')}`);
    const updated = appendRevision(twice, [[sigs[1], dict]]);
    const { cli, pdfsig } = await verify(updated, 'rewritten');
    expect(pdfsig).toEqual([true, false]);
    expect(cli[1]).toMatchObject({ valid: false, digest_valid: false });
    expect(cli[1]!.problems.some((p) => p.endsWith('the signature is not bound to its field'))).toBe(true);
    // For the first signature the update is a second signature whose dictionary is what the update wrote: form signing.
    expect(cli[0]).toMatchObject({ valid: true, digest_valid: true, changes_after: { level: 'signing_and_forms', allowed: true } });
  });

  it('with the first one\'s /Contents too (a borrowed signature, any /Reason): pdfsig calls it valid; localsign does not, its digest right for bytes it is not bound to', async () => {
    const s = Buffer.from(twice).toString('latin1');
    const at = offsetOf(twice, sigs[0]);
    const contents = /\/Contents\s*(<[0-9A-Fa-f\s]*>)/.exec(s.slice(at))![1]!;
    const first = byteRangeText(twice, sigs[0]);
    const dict = objectText(twice, sigs[1])
      .replace(/\/ByteRange \[[^\]]*\]/, `/ByteRange ${first.text.replace(/\s+/g, ' ').replace(' ]', ']')}`)
      .replace(/\/Contents <[0-9A-Fa-f]*>/, `/Contents ${contents}`)
      .replace(/\/Reason \([^)]*\)/, '/Reason (I agree to pay 9000 EUR)');
    const borrowed = appendRevision(twice, [[sigs[1], dict]]);
    const { cli, pdfsig } = await verify(borrowed, 'borrowed');
    expect(pdfsig).toEqual([true, true]);
    expect(cli[1]).toMatchObject({ valid: false, digest_valid: true });
    expect(cli[1]!.problems.filter((p) => !p.startsWith('chain'))).toEqual([expect.stringMatching(/^the \/ByteRange skips bytes \d+ to \d+, not this signature dictionary's own \/Contents \(bytes \d+ to \d+ of object \d+\): the signature is not bound to its field$/)]);
  });
});

describe('one signature dictionary used by two fields', () => {
  it('is validated once, reported once with both field names, and bound', async () => {
    const n = nextObjectNumber(twice);
    const update = appendRevision(twice, [
      ...addToList(twice, 'catalog', ['AcroForm', 'Fields'], [n]),
      [n, `<< /FT /Sig /T (Copy) /V ${sigs[0]} 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 4 0 R >>`],
    ]);
    const report = validatePdf(update, { trustAnchors: [pki.chain.at(-1)!], now: new Date(), revocation: 'if-available' });
    expect(report.signatures.map((s) => s.fields)).toEqual([['Signature1', 'Copy'], ['Signature2']]);
    expect(report.signatures[0]).toMatchObject({ valid: true, digestValid: true, modifications: { level: 'signing_and_forms' } });
  });
});

describe('where a signature dictionary\'s /Contents is (contentsSpan)', () => {
  const context = PDFContext.create();
  const doc = firstRevision([
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [2, '<< /Type /Pages /Kids [] /Count 0 >>'],
    [3, '<< /Type /Sig /ByteRange [0 1 2 3] /Contents   <AABBCC> >>'],
    [4, '<< /FT /Sig /T (inline) /V << /Type /Sig /Contents <0A0B> >> >>'],
    [5, '<< /Type /Sig /Contents <0102> /ByteRange [0 1 2 3] /Contents <AABBCC> >>'],
    [6, '<< /Type /Sig /ByteRange [0 1 2 3] /Contents <AABBCC> /ByteRange [0 2 3 4] >>'],
  ], '/Root 1 0 R');
  const text = Buffer.from(doc).toString('latin1');
  const entries = new PdfReader(doc).xref.entries;

  it('the /Contents of the object at its offset, delimiters included; inside a field\'s own object for an inline /V', () => {
    const last = text.indexOf('<AABBCC>');
    expect(contentsSpan(doc, entries, context, PDFRef.of(3), null)).toEqual({ objectNumber: 3, offset: offsetOf(doc, 3), start: last, end: last + 8 });
    const inline = text.indexOf('<0A0B>');
    expect(contentsSpan(doc, entries, context, null, PDFRef.of(4))).toMatchObject({ objectNumber: 4, start: inline, end: inline + 6 });
  });

  it('a /Contents or /ByteRange written twice binds nothing: readers differ on which they take (ISO 32000-2 §7.3.7)', () => {
    expect(contentsSpan(doc, entries, context, PDFRef.of(5), null)).toBe('the signature dictionary in object 5 has /Contents 2 times (ISO 32000-2 §7.3.7: a key at most once; readers differ on which they take)');
    expect(contentsSpan(doc, entries, context, PDFRef.of(6), null)).toBe('the signature dictionary in object 6 has /ByteRange 2 times (ISO 32000-2 §7.3.7: a key at most once; readers differ on which they take)');
  });

  it('names why when the object is not where the cross-reference data says, is compressed, or is missing', () => {
    const moved = new Map(entries);
    moved.set(3, { type: 'offset', offset: offsetOf(doc, 4), generation: 0 });
    expect(contentsSpan(doc, moved, context, PDFRef.of(3), null)).toBe(`object 3, which holds the signature dictionary, is not at byte ${offsetOf(doc, 4)} where the cross-reference data puts it`);
    moved.set(3, { type: 'compressed', streamNumber: 9, index: 0 });
    expect(contentsSpan(doc, moved, context, PDFRef.of(3), null)).toBe('object 3, which holds the signature dictionary, is stored in object stream 9, where no /ByteRange can skip its /Contents');
    expect(contentsSpan(doc, entries, context, PDFRef.of(7), null)).toBe('object 7, which holds the signature dictionary, is not in the cross-reference data');
    expect(contentsSpan(doc, entries, context, PDFRef.of(1), null)).toBe('the signature dictionary in object 1 has no /Contents');
  });
});
