/**
 * The shadow attacks (Mainka, Mladenov, Rohlmann, Schwenk: "Shadow Attacks: Hiding and Replacing
 * Content in Signed PDFs", NDSS 2021) against localsign's change analysis (issue 17): a document
 * prepared so that an incremental update after the signature changes what it shows, while
 * every signed byte stays as it was. Each update is hand-written (test/helpers/pdf-revisions.ts),
 * each document signed by the engine. The rendered text (mutool draw -F txt; pdftotext where
 * mupdf draws its own box for an unsigned signature field) shows each attack works; pdfsig
 * finds the signed bytes intact every time (its "Signature is Valid." is about the digest);
 * localsign's verdict is the change analysis':
 * - hide: what covers the signed text is hidden by an update (an xref-only redirect to an
 *   earlier definition, a rewrite, a rewrite passed off as form filling): other, invalid;
 * - replace: the page content, a resource left dangling, or a font replaced: other, invalid;
 * - overlay: a new annotation (or an empty signature field) drawn over the content: annotations,
 *   refused by a P=2 certification, allowed by P=3 and by an approval signature (as EU DSS and
 *   pyHanko allow annotations after an approval signature).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePdf, type SignatureReport } from '../../../src/pades/validate/validate';
import { signWithEngine } from '../../helpers/pdf-corpus';
import { addToList, appendRevision, firstRevision, nextObjectNumber, offsetOf, type Body } from '../../helpers/pdf-revisions';
import { runPdfsig, runTool } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let pki: TestPki;
let dir: string;

beforeAll(async () => {
  dir = tempDir('localsign-shadow-');
  pki = await createTestPki({ algorithm: 'rsa', signerCn: 'Shadow Signer' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COVER = { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >>', data: '1 1 1 rg 60 690 300 40 re f BT /F1 12 Tf 72 700 Td (Amount: 100 EUR) Tj ET' };
const EMPTY = { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842]', data: '' };
const PAGE = (extra = '') => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /Fm0 6 0 R${extra} >> >> /Annots [8 0 R] >>`;
const TEXT_FIELD = (value: string, ap: number) => `<< /FT /Tx /T (note) /V (${value}) /Type /Annot /Subtype /Widget /Rect [400 100 500 120] /F 4 /P 3 0 R /AP << /N ${ap} 0 R >> >>`;

/**
 * The prepared document: the page writes "Amount: 1000 EUR" and draws /Fm0 over it, which
 * covers it with white and writes "Amount: 100 EUR": the signer sees 100. `first` bodies go in
 * the first revision (an attacker's planted objects), `prepared` in a second one before signing.
 */
function prepared(first: Record<number, Body> = {}, second: [number, Body][] = []): Uint8Array {
  const objects: Record<number, Body> = {
    1: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [8 0 R] >> >>',
    2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    3: PAGE(),
    4: { dict: '', data: 'BT /F1 12 Tf 72 700 Td (Amount: 1000 EUR) Tj ET /Fm0 Do' },
    5: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    6: COVER,
    7: { dict: '/Type /XObject /Subtype /Form /BBox [0 0 100 20]', data: '' },
    8: TEXT_FIELD('', 7),
    ...first,
  };
  const pdf = firstRevision(Object.entries(objects).map(([n, b]) => [Number(n), b]), '/Root 1 0 R');
  return second.length > 0 ? appendRevision(pdf, second) : pdf;
}

async function sign(pdf: Uint8Array, certify?: 2 | 3): Promise<Uint8Array> {
  return (await signWithEngine(pdf, { ...pki, algorithm: 'rsa' }, certify ? { certify } : {})).output;
}

/** The text mutool renders from the first page. */
async function shownText(pdf: Uint8Array, name: string): Promise<string> {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  const run = await runTool('mutool', ['draw', '-q', '-F', 'txt', '-o', '-', file, '1']);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

interface Verdict {
  signature: SignatureReport;
  pdfsigDigest: boolean[];
}

async function judge(pdf: Uint8Array, name: string): Promise<Verdict> {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  // No revocation data in these documents: what is judged is the change analysis, so its absence is let pass.
  const report = validatePdf(pdf, { trustAnchors: [pki.chain.at(-1)!], now: new Date(), revocation: 'if-available' });
  const pdfsig = await runPdfsig(file);
  return { signature: report.signatures[0]!, pdfsigDigest: pdfsig.signatures.filter((s) => s.signed).map((s) => s.signatureValid) };
}

describe('hide: what covers the signed content hidden by a later update', () => {
  it('an xref-only update pointing the cover back at an earlier, empty definition: other', async () => {
    // The attacker's first revision defines object 6 empty; the prepared one (what is signed) redefines it as the cover.
    const doc = prepared({ 6: EMPTY }, [[6, COVER]]);
    const signed = await sign(doc);
    const firstCopy = offsetOf(prepared({ 6: EMPTY }), 6);
    const attacked = appendRevision(signed, [], { redirect: { 6: firstCopy } });
    expect(await shownText(signed, 'hide-xref-signed')).toContain('Amount: 100 EUR');
    expect(await shownText(attacked, 'hide-xref')).not.toContain('Amount: 100 EUR');
    const { signature, pdfsigDigest } = await judge(attacked, 'hide-xref');
    expect(pdfsigDigest).toEqual([true]);
    expect(signature).toMatchObject({ valid: false, digestValid: true, modifications: { level: 'other' }, docMdp: { allowed: false } });
    expect(signature.modifications.changes).toEqual([`object 6 redirected by the cross-reference data to byte ${firstCopy}, inside the signed revision`]);
  });

  it('the cover rewritten by an update: other', async () => {
    const signed = await sign(prepared());
    const attacked = appendRevision(signed, [[6, EMPTY]]);
    expect(await shownText(attacked, 'hide-rewrite')).not.toContain('Amount: 100 EUR');
    const { signature, pdfsigDigest } = await judge(attacked, 'hide-rewrite');
    expect(pdfsigDigest).toEqual([true]);
    expect(signature).toMatchObject({ valid: false, modifications: { level: 'other', changes: ['object 6 (Form) changed: content or resources a page draws'] } });
  });

  it('the cover is also a form field\'s appearance, rewritten with a form fill: other, though filling is allowed', async () => {
    // The field's /AP /N is the page's own /Fm0: filling the field "updates its appearance".
    const signed = await sign(prepared({ 8: TEXT_FIELD('', 6) }), 2);
    const attacked = appendRevision(signed, [[8, TEXT_FIELD('filled', 6)], [6, EMPTY]]);
    expect(await shownText(attacked, 'hide-form')).not.toContain('Amount: 100 EUR');
    const { signature, pdfsigDigest } = await judge(attacked, 'hide-form');
    expect(pdfsigDigest).toEqual([true]);
    expect(signature).toMatchObject({ valid: false, docMdp: { certifies: 2, allowed: false }, modifications: { level: 'other' } });
    expect(signature.modifications.changes).toContain('object 6 (Form) changed: content or resources a page draws');
    // The same fill without touching the page's object is form filling, which P=2 allows.
    const n = nextObjectNumber(signed);
    const honest = appendRevision(signed, [[8, TEXT_FIELD('filled', n)], [n, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 100 20]', data: '' }]]);
    expect((await judge(honest, 'hide-form-honest')).signature).toMatchObject({ valid: true, modifications: { level: 'signing_and_forms' }, docMdp: { allowed: true } });
  });
});

describe('replace: the signed content replaced by a later update', () => {
  it('the page\'s content stream rewritten: other', async () => {
    const signed = await sign(prepared());
    const attacked = appendRevision(signed, [[4, { dict: '', data: 'BT /F1 12 Tf 72 700 Td (Amount: 9000 EUR) Tj ET' }]]);
    expect(await shownText(attacked, 'replace-content')).toContain('Amount: 9000 EUR');
    const { signature, pdfsigDigest } = await judge(attacked, 'replace-content');
    expect(pdfsigDigest).toEqual([true]);
    expect(signature).toMatchObject({ valid: false, modifications: { level: 'other', changes: ['object 4 changed: content or resources a page draws'] } });
  });

  it('a resource the signed page named but nothing defined, defined later: other', async () => {
    const dangling = prepared({ 3: PAGE(' /Fm1 30 0 R'), 4: { dict: '', data: 'BT /F1 12 Tf 72 700 Td (Amount: 100 EUR) Tj ET /Fm1 Do' } });
    const signed = await sign(dangling);
    const num = nextObjectNumber(signed);
    expect(num).toBeLessThanOrEqual(30);
    const attacked = appendRevision(signed, [[30, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >>', data: '1 1 1 rg 60 690 300 40 re f BT /F1 12 Tf 72 700 Td (Amount: 9000 EUR) Tj ET' }]]);
    expect(await shownText(attacked, 'replace-dangling')).toContain('Amount: 9000 EUR');
    const { signature, pdfsigDigest } = await judge(attacked, 'replace-dangling');
    expect(pdfsigDigest).toEqual([true]);
    expect(signature).toMatchObject({ valid: false, modifications: { level: 'other', changes: ['object 30 (Form) added: content or resources a page draws'] } });
  });

  it('the font the page draws with replaced: other', async () => {
    const signed = await sign(prepared());
    const attacked = appendRevision(signed, [[5, '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>']]);
    const { signature } = await judge(attacked, 'replace-font');
    expect(signature).toMatchObject({ valid: false, modifications: { level: 'other', changes: ['object 5 (Type1) changed: content or resources a page draws'] } });
  });
});

describe('overlay: something new drawn over the signed content', () => {
  /** An update adding, over the amount, `widget` (a signature field's) or a FreeText annotation. */
  const overlay = (signed: Uint8Array, widget = false): Uint8Array => {
    const n = nextObjectNumber(signed);
    const annot = widget
      ? `<< /FT /Sig /T (Witness) /Type /Annot /Subtype /Widget /Rect [60 690 360 730] /F 4 /P 3 0 R /AP << /N ${n + 1} 0 R >> >>`
      : `<< /Type /Annot /Subtype /FreeText /Rect [60 690 360 730] /DA (/Helv 12 Tf 0 g) /Contents (Amount: 9000 EUR) /AP << /N ${n + 1} 0 R >> /P 3 0 R >>`;
    return appendRevision(signed, [
      ...addToList(signed, 3, ['Annots'], [n]),
      ...(widget ? addToList(signed, 'catalog', ['AcroForm', 'Fields'], [n]) : []),
      [n, annot],
      [n + 1, { dict: '/Type /XObject /Subtype /Form /BBox [0 0 300 40] /Resources << /Font << /F1 5 0 R >> >>', data: '1 1 1 rg 0 0 300 40 re f BT /F1 12 Tf 12 10 Td (Amount: 9000 EUR) Tj ET' }],
    ]);
  };

  it('a new annotation over the amount: annotations; refused by P=2, allowed by P=3 and after an approval signature', async () => {
    for (const [certify, allowed] of [[2, false], [3, true], [undefined, true]] as const) {
      const attacked = overlay(await sign(prepared(), certify));
      expect(await shownText(attacked, `overlay-${certify}`)).toContain('Amount: 9000 EUR');
      const { signature, pdfsigDigest } = await judge(attacked, `overlay-${certify}`);
      expect(pdfsigDigest).toEqual([true]);
      expect(signature).toMatchObject({ valid: allowed, docMdp: { permission: certify ?? null, allowed }, modifications: { level: 'annotations' } });
      if (!allowed) expect(signature.problems).toContain(`changes after it are not allowed by DocMDP P=2: ${signature.modifications.changes.join('; ')}`);
    }
  });

  it('a new, empty signature field drawn over the amount after a P=2 certification: annotations, refused', async () => {
    const attacked = overlay(await sign(prepared(), 2), true);
    // mupdf draws its own "SIGN" box for an unsigned signature field; poppler draws the field's /AP.
    writeFileSync(join(dir, 'overlay-field.pdf'), attacked);
    expect((await runTool('pdftotext', [join(dir, 'overlay-field.pdf'), '-'])).stdout).toContain('Amount: 9000');
    const { signature, pdfsigDigest } = await judge(attacked, 'overlay-field');
    expect(pdfsigDigest).toEqual([true]);
    expect(signature).toMatchObject({ valid: false, docMdp: { certifies: 2, allowed: false }, modifications: { level: 'annotations' } });
    expect(signature.modifications.changes).toContain(`field 'Witness' (object ${nextObjectNumber(attacked) - 2}): annotations`);
  });
});
