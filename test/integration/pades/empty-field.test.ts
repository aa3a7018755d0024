import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFString, StandardFonts } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { lintPadesBaselineB } from '../../helpers/pades-lint';
import { verifyPades } from '../../../src/pades/sign/verify';
import { CORPUS_DIR, signWithEngine } from '../../helpers/pdf-corpus';
import { runPdfsig } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { makeTmpHome } from '../../helpers/tmp-home';

/** A form prepared for signing: one page, an empty signature field "SignHere" at [400 700 550 740]. */
async function formWithSignatureField(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  page.drawText('Please sign in the box', { x: 50, y: 720, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  const field = doc.context.register(
    doc.context.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', T: PDFString.of('SignHere'), Rect: [400, 700, 550, 740], F: 4, P: page.ref }),
  );
  page.node.set(PDFName.of('Annots'), doc.context.obj([field]));
  doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: [field] }));
  return doc.save({ useObjectStreams: false });
}

const STAMP = { page: 'last' as const, x: 36, y: 36, width: 200, height: 40, lines: [{ text: 'Signed here', size: 9 }] };

describe('forms with an empty signature field (ISO 32000-1 §12.7.4.5)', () => {
  const tmp = makeTmpHome();
  let pki: TestPki & { algorithm: 'p256' };
  beforeAll(async () => {
    pki = { ...(await createTestPki({ algorithm: 'p256' })), algorithm: 'p256' };
  });

  async function check(output: Uint8Array, name: string) {
    const file = join(tmp.home, name);
    writeFileSync(file, output);
    expect(lintPadesBaselineB(output).ok).toBe(true);
    return { file, sig: await runPdfsig(file) };
  }

  it('signs into the field, with the stamp at the field\'s place and size, and adds no field', async () => {
    const input = await formWithSignatureField();
    const { output } = await signWithEngine(input, pki, { stamp: STAMP });
    expect(Buffer.from(output.subarray(0, input.length)).equals(Buffer.from(input))).toBe(true);
    expect(verifyPades(output).fieldName).toBe('SignHere');
    const doc = await PDFDocument.load(output, { updateMetadata: false });
    const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
    expect(fields.size()).toBe(1);
    const field = fields.lookup(0, PDFDict);
    expect(field.lookup(PDFName.of('Rect'), PDFArray).toString()).toBe('[ 400 700 550 740 ]');
    expect(field.lookup(PDFName.of('V'))).toBeInstanceOf(PDFDict);
    const { file, sig } = await check(output, 'filled.pdf');
    expect(sig.signatures.map((s) => [s.name, s.signatureValid, s.coversWholeDocument])).toEqual([['SignHere', true, true]]);
    // The stamp text is drawn inside the field's box (x 400-550, y 700-740 from the bottom).
    const bbox = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
    const word = /<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>Signed<\/word>/.exec(bbox);
    expect(word).not.toBeNull();
    expect(Number(word![1])).toBeGreaterThanOrEqual(400);
    expect(792 - Number(word![2])).toBeLessThanOrEqual(740);
  });

  it('fills a zero-size field invisibly when no stamp applies', async () => {
    const input = new Uint8Array(readFileSync(join(CORPUS_DIR, 'hand-signature-field.pdf')));
    const { output } = await signWithEngine(input, pki);
    expect(verifyPades(output).fieldName).toBe('OtherTool');
    const { sig } = await check(output, 'invisible.pdf');
    expect(sig.signatures.map((s) => [s.name, s.signatureValid])).toEqual([['OtherTool', true]]);
  });

  it('keeps a stamp visible: with only a zero-size field, the signature gets a new field', async () => {
    const input = new Uint8Array(readFileSync(join(CORPUS_DIR, 'hand-signature-field.pdf')));
    const { output } = await signWithEngine(input, pki, { stamp: STAMP });
    expect(verifyPades(output).fieldName).toBe('Signature1');
    const { file, sig } = await check(output, 'new-field.pdf');
    expect(sig.signatures.filter((s) => s.signatureValid).map((s) => s.name)).toEqual(['Signature1']);
    expect(execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' })).toContain('Signed here');
  });

  it('adds a new field for the next signature once the form\'s field is signed; both stay valid', async () => {
    const first = (await signWithEngine(await formWithSignatureField(), pki, { stamp: STAMP })).output;
    const second = (await signWithEngine(first, pki, { stamp: STAMP })).output;
    expect(verifyPades(second).fieldName).toBe('Signature1');
    const { sig } = await check(second, 'second.pdf');
    expect(sig.signatures.map((s) => [s.name, s.signatureValid])).toEqual([
      ['SignHere', true],
      ['Signature1', true],
    ]);
  });
});
