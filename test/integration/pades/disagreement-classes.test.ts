/**
 * The classes on which localsign disagreed with other projects' signed PDFs (issue 28), each on a
 * document made here: signed by the engine, then changed by a hand-written incremental update
 * (helpers/pdf-revisions.ts) as the attacker or the form filler would, pdfsig judging the digest
 * beside us. What each should be is decided by ISO 32000-2, ETSI EN 319 142-1 and the reference
 * validators; where those disagree with each other the test says which one we follow and why:
 * - bytes after %%EOF (ISO 32000-2 §7.5.5): a signature then does not cover the whole file, as
 *   pdfsig ("Total document signed" only when exact), EU DSS (isSignatureCoversWholeDocument: the
 *   byte count) and pyHanko (ENTIRE_FILE only when exact) say, and nothing changed after it;
 * - /Contents as an indirect object: refused, as pyHanko does ("/Contents must be string-like"),
 *   where DSS and pdfsig follow the reference; /Contents twice: refused (§7.3.7), as readers
 *   differ on which they take;
 * - FieldMDP: a change to a field the signature locks invalidates it (§12.8.2.4), what DocMDP
 *   allows notwithstanding;
 * - two certification signatures: only the first certifies (§12.8.2.2.1), its /P governs;
 * - a widget overwritten with an empty dictionary (the "hide" attack): other, as DSS's hide test;
 * - a choice field's selection (/I, §12.7.5.4 Table 234) changed with its value: form filling;
 * - a page's /StructParents (§14.7.5.4) with a structure tree: signing and forms, as EU DSS
 *   classes structure tree changes; its /Tabs (Table 31, the annotations' order): annotations.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePdf, type SignatureReport } from '../../../src/pades/validate/validate';
import { signWithEngine } from '../../helpers/pdf-corpus';
import { runPdfsig } from '../../helpers/pdf-tools';
import { addAnnotation, appendRevision, firstRevision, nextObjectNumber, objectText } from '../../helpers/pdf-revisions';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let dir: string;
let pki: TestPki;
let base: Uint8Array;

/** A page with a text field 'amount', a choice field 'colour' and an empty signature field 'Approval' whose /Lock names 'amount'. */
function form(): Uint8Array {
  return firstRevision([
    [1, '<< /Type /Catalog /Pages 2 0 R /AcroForm 5 0 R >>'],
    [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Annots [6 0 R 7 0 R 8 0 R] >>'],
    [4, { dict: '', data: '0 0 1 rg 72 700 100 20 re f' }],
    [5, '<< /Fields [6 0 R 7 0 R 8 0 R] /DA (/Helv 0 Tf 0 g) >>'],
    [6, '<< /FT /Tx /T (amount) /V (100) /Type /Annot /Subtype /Widget /Rect [72 600 200 620] /P 3 0 R >>'],
    [7, '<< /FT /Ch /Ff 131072 /T (colour) /Opt [(red) (green) (blue)] /V (red) /I [0] /Type /Annot /Subtype /Widget /Rect [72 560 200 580] /P 3 0 R >>'],
    [8, '<< /FT /Sig /T (Approval) /Lock << /Type /SigFieldLock /Action /Include /Fields [(amount)] >> /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R >>'],
  ], '/Root 1 0 R');
}

const judge = (pdf: Uint8Array, i = 0): SignatureReport =>
  // The test PKI publishes no revocation data: what is judged is the document.
  validatePdf(pdf, { trustAnchors: [pki.chain.at(-1)!], now: new Date(), revocation: 'if-available' }).signatures[i]!;

async function pdfsigDigests(pdf: Uint8Array, name: string): Promise<boolean[]> {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, pdf);
  return (await runPdfsig(file)).signatures.filter((s) => s.signed).map((s) => s.signatureValid);
}

beforeAll(async () => {
  dir = tempDir('localsign-classes-');
  pki = await createTestPki({ algorithm: 'rsa', dir: join(dir, 'pki'), signerCn: 'Classes Signer' });
  base = form();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sign = async (pdf: Uint8Array, certify?: 1 | 2 | 3) => (await signWithEngine(pdf, { ...pki, algorithm: 'rsa' }, certify ? { certify } : {})).output;

describe('what happens after %%EOF', () => {
  it.each([1, 2, 4])('%i end-of-line bytes after the last EOF marker: not the whole file (as pdfsig, DSS and pyHanko count), nothing changed, still valid', async (n) => {
    const signed = await sign(base);
    const trailing = new Uint8Array(Buffer.concat([Buffer.from(signed), Buffer.from('\r\n\r\n'.slice(0, n), 'latin1')]));
    const s = judge(trailing);
    expect(s).toMatchObject({ valid: true, digestValid: true, coversWholeDocument: false, modifications: { level: 'none' } });
    expect(await pdfsigDigests(trailing, `eol-${n}`)).toEqual([true]);
  });
});

describe('where the signature value is', () => {
  /** A signature dictionary written by hand (its value need not verify: what is judged is where it is). */
  function handSigned(sig: (gap: string) => string, extra: [number, string][] = []): Uint8Array {
    const gap = `<${'0'.repeat(64)}>`;
    return firstRevision([
      [1, '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >> >>'],
      [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
      [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Annots [4 0 R] >>'],
      [4, '<< /FT /Sig /T (Signature1) /V 5 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R >>'],
      [5, sig(gap)],
      ...extra,
    ], '/Root 1 0 R');
  }

  it('/Contents as an indirect object: refused, the reason named (pyHanko refuses it too)', () => {
    const pdf = handSigned(() => '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 10 20 30] /Contents 6 0 R >>', [[6, `<${'0'.repeat(64)}>`]]);
    expect(judge(pdf).problems).toContain('/Contents is an indirect object (6 0 R), not the hex string in the signature dictionary that the /ByteRange must exclude (ISO 32000-2 §12.8.1)');
  });

  it('/Contents twice: refused (ISO 32000-2 §7.3.7), whichever of the two the /ByteRange skips', () => {
    const pdf = handSigned((gap) => `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /Contents ${gap} /ByteRange [0 10 20 30] /Contents ${gap} >>`);
    expect(judge(pdf).problems).toContain('the signature is not bound to its field: the signature dictionary in object 5 has /Contents 2 times (ISO 32000-2 §7.3.7: a key at most once; readers differ on which they take)');
  });
});

describe('form fields after an approval signature', () => {
  it('a change of the field its /Lock names invalidates it (FieldMDP, ISO 32000-2 §12.8.2.4); another field may change', async () => {
    const signed = await sign(base);
    expect(judge(signed)).toMatchObject({ valid: true, fieldName: 'Approval' });
    const amount = objectText(signed, 6).replace('(100)', '(9100)');
    const locked = appendRevision(signed, [[6, amount]]);
    const s = judge(locked);
    expect(s).toMatchObject({ valid: false, digestValid: true, modifications: { level: 'signing_and_forms' }, docMdp: { allowed: true } });
    expect(s.problems).toEqual(["changes after it are not allowed by its FieldMDP lock (ISO 32000-2 §12.8.2.4): field 'amount' changed"]);
    expect(await pdfsigDigests(locked, 'fieldmdp')).toEqual([true]);
  });

  it('a choice field\'s value and selection (/I) filled: form filling, allowed', async () => {
    const signed = await sign(base);
    const colour = objectText(signed, 7).replace('/V (red)', '/V (blue)').replace(/\/I \[\s*0\s*\]/, '/I [2]');
    expect(colour).toContain('/I [2]');
    const s = judge(appendRevision(signed, [[7, colour]]));
    expect(s).toMatchObject({ valid: true, modifications: { level: 'signing_and_forms' } });
  });

  it('a widget overwritten with an empty dictionary (the "hide" attack): other, never allowed', async () => {
    const signed = await sign(base);
    const s = judge(appendRevision(signed, [[7, '<< >>']]));
    expect(s).toMatchObject({ valid: false, modifications: { level: 'other' }, docMdp: { allowed: false } });
    expect(s.modifications.changes).toContain('object 7, a field or widget in the signed revision, overwritten with something that is neither');
  });
});

describe('the page keys a later signature or annotation brings', () => {
  it('a structure tree added with the page\'s /StructParents (a tagged second signature): signing and forms; a /Tabs order: annotations', async () => {
    const signed = await sign(base);
    const n = nextObjectNumber(signed);
    const catalog = objectText(signed, 1).replace(/>>\s*$/, `/StructTreeRoot ${n} 0 R /MarkInfo << /Marked true >> >>`);
    const tagged = appendRevision(signed, [
      [1, catalog],
      [3, objectText(signed, 3).replace(/>>\s*$/, '/StructParents 0 >>')],
      [n, `<< /Type /StructTreeRoot /K ${n + 1} 0 R /ParentTree << /Nums [0 [${n + 1} 0 R]] >> >>`],
      [n + 1, `<< /Type /StructElem /S /Document /P ${n} 0 R /Pg 3 0 R >>`],
    ]);
    expect(judge(tagged)).toMatchObject({ valid: true, modifications: { level: 'signing_and_forms' } });
    const tabs = appendRevision(signed, [[3, objectText(signed, 3).replace(/>>\s*$/, '/Tabs /R >>')]]);
    expect(judge(tabs)).toMatchObject({ modifications: { level: 'annotations' } });
  });
});

describe('two certification signatures', () => {
  it('only the first certifies: its P=2 refuses an annotation a second one\'s P=3 would allow, and the second is named', async () => {
    const certified = await sign(base, 2);
    // A second signature dictionary claiming DocMDP P=3, the catalog's /Perms pointed at it.
    const n = nextObjectNumber(certified);
    const catalog = objectText(certified, 1).replace(/\/Perms\s*<<[^>]*>>/, '').replace(/>>\s*$/, `/Perms << /DocMDP ${n + 1} 0 R >> >>`);
    const acroForm = objectText(certified, 5).replace(/\/Fields\s*\[/, `/Fields [${n} 0 R `);
    const page = objectText(certified, 3).replace(/\/Annots\s*\[/, `/Annots [${n} 0 R `);
    const second = appendRevision(certified, [
      [1, catalog],
      [3, page],
      [5, acroForm],
      [n, `<< /FT /Sig /T (Second) /V ${n + 1} 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /F 132 /P 3 0 R >>`],
      [n + 1, `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange [0 ${'0'.repeat(10)} ${'0'.repeat(10)} ${'0'.repeat(10)}] /Contents <${'0'.repeat(64)}> /Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P 3 /V /1.2 >> >>] >>`],
    ]);
    // Its /ByteRange patched in place around its own /Contents, to the end of its revision: a signature of that revision, in file order.
    const text = Buffer.from(second).toString('latin1');
    const gap = text.lastIndexOf(`<${'0'.repeat(64)}>`);
    const range = `[0 ${String(gap).padStart(10)} ${String(gap + 66).padStart(10)} ${String(second.length - gap - 66).padStart(10)}]`;
    second.set(Buffer.from(range, 'latin1'), text.lastIndexOf(`[0 ${'0'.repeat(10)}`));
    const annotated = addAnnotation(second);
    const [first, later] = [judge(annotated, 0), judge(annotated, 1)];
    expect(first).toMatchObject({ docMdp: { certifies: 2, permission: 2, allowed: false }, valid: false });
    expect(later.docMdp.certifies).toBeNull();
    expect(later.problems).toContain('it claims to certify the document (DocMDP P=3), but only the first signature may (ISO 32000-2 §12.8.2.2.1): Approval certifies it');
  });
});
