/**
 * Changes after signing made by real tools (issue 17 "Done when"), judged by `localsign verify
 * --json` (the bundle: `npm run build` first): for each, the class of the changes, whether they
 * are allowed (the signature's DocMDP permission, or none), and whether the signature stays
 * valid; pdfsig for the ByteRange and digest side (it does no change analysis: it finds the
 * signed bytes intact every time). The documents are signed by the engine.
 *
 * The updates are mutool 1.21's (`mutool run` scripts saving with "incremental": form filling,
 * an annotation, /Info, XMP metadata, an AcroForm /DR with fonts, a catalog value re-encoded,
 * the structure tree and a name tree, a locking signature field, a /DSS replaced, pages added,
 * removed or reordered, a content stream, /Fields). qpdf 11.3 writes no incremental update: it
 * makes an input with object streams and cross-reference streams (`--object-streams=generate`),
 * and `qpdf --check` reads every update. Document timestamps and the DSS of B-LT are localsign's.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishDocTimestamp, prepareDocTimestamp } from '../../../src/pades/sign/doc-timestamp';
import { addDss } from '../../../src/pades/sign/dss';
import { buildTimestampRequestForImprint, parseTimestampResponse } from '../../../src/pades/cms/timestamp';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { startLocalTsa, type LocalTsa } from '../../helpers/local-tsa';
import { CORPUS_DIR, signWithEngine } from '../../helpers/pdf-corpus';
import { qpdfCheck, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let pki: TestPki;
let tsa: LocalTsa;
let dir: string;
let trust: string;
const corpus = (name: string) => new Uint8Array(readFileSync(join(CORPUS_DIR, name)));

/** mutool 1.21 scripts (mupdf's JavaScript API), each saving its input's update incrementally. */
const SCRIPTS: Record<string, string> = {
  fill: `
var doc = new PDFDocument(scriptArgs[0]);
var widgets = doc.loadPage(0).getWidgets();
for (var i = 0; i < widgets.length; i++) {
  var w = widgets[i];
  if (w.getFieldType() === 'text') { w.setTextValue('Filled ' + i); w.update(); }
  if (w.getFieldType() === 'checkbox') { w.toggle(); w.update(); }
}
doc.save(scriptArgs[1], 'incremental');`,
  annotate: `
var doc = new PDFDocument(scriptArgs[0]);
var page = doc.loadPage(0);
var a = page.createAnnotation('Text');
a.setRect([100, 100, 120, 120]);
a.setContents('a later note');
a.update();
doc.save(scriptArgs[1], 'incremental');`,
  info: `
var doc = new PDFDocument(scriptArgs[0]);
doc.setMetaData('info:ModDate', "D:20270101120000+00'00'");
doc.setMetaData('info:Producer', 'mutool (localsign test)');
doc.save(scriptArgs[1], 'incremental');`,
  xmp: `
var doc = new PDFDocument(scriptArgs[0]);
var d = doc.newDictionary(); d.Type = doc.newName('Metadata'); d.Subtype = doc.newName('XML');
doc.getTrailer().Root.Metadata = doc.addStream('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:ModifyDate>2027-01-01T12:00:00Z</xmp:ModifyDate></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>', d);
doc.save(scriptArgs[1], 'incremental');`,
  dr: `
var doc = new PDFDocument(scriptArgs[0]);
var af = doc.getTrailer().Root.AcroForm;
function font(base) { var f = doc.newDictionary(); f.Type = doc.newName('Font'); f.Subtype = doc.newName('Type1'); f.BaseFont = doc.newName(base); return doc.addObject(f); }
var fonts = doc.newDictionary(); fonts.Helv = font('Helvetica'); fonts.ZaDb = font('ZapfDingbats');
var dr = doc.newDictionary(); dr.Font = fonts;
af.DR = dr;
af.DA = doc.newString('/Helv 0 Tf 0 g');
doc.save(scriptArgs[1], 'incremental');`,
  lang: `
var doc = new PDFDocument(scriptArgs[0]);
doc.getTrailer().Root.Lang = doc.newString('en-GB');
doc.save(scriptArgs[1], 'incremental');`,
  struct: `
var doc = new PDFDocument(scriptArgs[0]);
var root = doc.getTrailer().Root;
var str = root.StructTreeRoot;
var fields = root.AcroForm.Fields;
var widget = fields[fields.length - 1];
var se = doc.newDictionary(); se.Type = doc.newName('StructElem'); se.S = doc.newName('Form'); se.P = str.K;
var objr = doc.newDictionary(); objr.Type = doc.newName('OBJR'); objr.Obj = widget; se.K = objr;
var ref = doc.addObject(se);
str.K.K.push(ref);
str.ParentTree.Nums.push(0); str.ParentTree.Nums.push(ref);
str.ParentTreeNextKey = 1;
widget.StructParent = 0;
var dest = doc.newArray(); dest.push(doc.findPage(0)); dest.push(doc.newName('Fit'));
root.Names.Dests.Names.push(doc.newString('signature')); root.Names.Dests.Names.push(dest);
doc.save(scriptArgs[1], 'incremental');`,
  lockfield: `
var doc = new PDFDocument(scriptArgs[0]);
var root = doc.getTrailer().Root;
var page = doc.findPage(0);
var lock = doc.newDictionary(); lock.Type = doc.newName('SigFieldLock'); lock.Action = doc.newName('All');
var f = doc.newDictionary();
f.Type = doc.newName('Annot'); f.Subtype = doc.newName('Widget'); f.FT = doc.newName('Sig'); f.T = doc.newString('Approval');
var r = doc.newArray(); r.push(0); r.push(0); r.push(0); r.push(0); f.Rect = r; f.F = 132; f.P = page;
f.Lock = doc.addObject(lock);
var ref = doc.addObject(f);
root.AcroForm.Fields.push(ref);
page.Annots.push(ref);
doc.save(scriptArgs[1], 'incremental');`,
  'dss-replace': `
var doc = new PDFDocument(scriptArgs[0]);
var root = doc.getTrailer().Root;
var old = root.DSS;
var dss = doc.newDictionary(); dss.Type = doc.newName('DSS');
var certs = doc.newArray();
for (var i = 0; i < old.Certs.length; i++) certs.push(old.Certs[i]);
certs.push(doc.addStream(readFile(scriptArgs[2]), doc.newDictionary()));
dss.Certs = doc.addObject(certs);
if (old.VRI) dss.VRI = old.VRI;
root.DSS = doc.addObject(dss);
doc.save(scriptArgs[1], 'incremental');`,
  pages: `
var doc = new PDFDocument(scriptArgs[0]);
var what = scriptArgs[2];
if (what === 'add') doc.insertPage(-1, doc.addPage([0, 0, 595, 842], 0, null, 'BT /F1 12 Tf 72 700 Td (added) Tj ET'));
if (what === 'remove') doc.deletePage(doc.countPages() - 1);
if (what === 'reorder') { var kids = doc.getTrailer().Root.Pages.Kids; var a = kids[0]; kids[0] = kids[1]; kids[1] = a; }
if (what === 'content') doc.findPage(0).Contents = doc.addStream('BT /F1 24 Tf 72 700 Td (Amount: 9000 EUR) Tj ET', doc.newDictionary());
if (what === 'fields') { var af = doc.getTrailer().Root.AcroForm; var n = doc.newArray(); for (var i = 1; i < af.Fields.length; i++) n.push(af.Fields[i]); af.Fields = n; }
doc.save(scriptArgs[1], 'incremental');`,
};

beforeAll(async () => {
  dir = tempDir('localsign-tools-');
  [pki, tsa] = await Promise.all([createTestPki({ algorithm: 'rsa', signerCn: 'Tools Signer' }), startLocalTsa()]);
  trust = join(dir, 'trust.pem');
  writeFileSync(trust, pki.caCertPem + tsa.caCertPem);
  for (const [name, text] of Object.entries(SCRIPTS)) writeFileSync(join(dir, `${name}.js`), text);
});
afterAll(async () => {
  await tsa.close();
  rmSync(dir, { recursive: true, force: true });
});

let count = 0;
/** `mutool run SCRIPT in out args…`: the update, checked to keep the input as its prefix and to read clean in qpdf. */
async function mutool(script: string, input: Uint8Array, ...args: string[]): Promise<Uint8Array> {
  const n = ++count;
  const [inFile, outFile] = [join(dir, `in-${n}.pdf`), join(dir, `out-${n}.pdf`)];
  writeFileSync(inFile, input);
  const run = await runTool('mutool', ['run', join(dir, `${script}.js`), inFile, outFile, ...args]);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const out = new Uint8Array(readFileSync(outFile));
  expect(Buffer.compare(out.subarray(0, input.length), input), 'mutool saved incrementally').toBe(0);
  const check = await qpdfCheck(outFile);
  expect(check.ok, check.raw).toBe(true);
  return out;
}

const sign = async (pdf: Uint8Array, certify?: 1 | 2 | 3) => (await signWithEngine(pdf, { ...pki, algorithm: 'rsa' }, certify ? { certify } : {})).output;

interface Judged {
  level: string;
  allowed: boolean;
  valid: boolean;
  changes: string[];
}

/** localsign's verdict on each signature (first `count` of them) and pdfsig's digest verdicts. */
async function judge(pdf: Uint8Array): Promise<{ signatures: Judged[]; pdfsig: boolean[] }> {
  const file = join(dir, `judged-${++count}.pdf`);
  writeFileSync(file, pdf);
  // No revocation data in most of these documents: what is judged is the change analysis, so its absence is let pass.
  const [r, pdfsig] = await Promise.all([runCliAsync(['verify', file, '--json', '--trust', trust, '--revocation', 'if-available'], { home: dir }), runPdfsig(file)]);
  const report = parseJson<{ signatures: { valid: boolean; changes_after: { level: string; allowed: boolean; changes: string[] } }[] }>(r);
  return {
    signatures: report.signatures.map((s) => ({ level: s.changes_after.level, allowed: s.changes_after.allowed, valid: s.valid, changes: s.changes_after.changes })),
    pdfsig: pdfsig.signatures.filter((s) => s.signed).map((s) => s.signatureValid),
  };
}

/** A form (pdf-lib's) made tagged: /Lang as UTF-16 hex, a structure tree with a Document element, a /Dests name tree. */
async function taggedForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.load(corpus('pdflib-acroform.pdf'));
  const ctx = doc.context;
  doc.catalog.set(PDFName.of('Lang'), PDFHexString.fromText('en-GB'));
  const rootRef = ctx.nextRef();
  const element = ctx.register(ctx.obj({ Type: 'StructElem', S: 'Document', P: rootRef, K: [] }));
  ctx.assign(rootRef, ctx.obj({ Type: 'StructTreeRoot', K: element, ParentTree: ctx.register(ctx.obj({ Nums: [] })), ParentTreeNextKey: 0 }));
  doc.catalog.set(PDFName.of('StructTreeRoot'), rootRef);
  doc.catalog.set(PDFName.of('MarkInfo'), ctx.obj({ Marked: true }));
  const dests = ctx.register(ctx.obj({ Names: [PDFString.of('intro'), [doc.getPage(0).ref, 'Fit']] }));
  doc.catalog.set(PDFName.of('Names'), ctx.register(ctx.obj({ Dests: dests })));
  return doc.save({ useObjectStreams: false });
}

describe('allowed by P=2: form filling and signing, metadata, the DSS, the structure tree', () => {
  it('form filling by mutool (three text fields, a check box): signing_and_forms; allowed after approval and P=2, not P=1', async () => {
    for (const [certify, allowed] of [[undefined, true], [2, true], [1, false]] as const) {
      const filled = await mutool('fill', await sign(corpus('pdflib-acroform.pdf'), certify));
      const { signatures, pdfsig } = await judge(filled);
      expect(pdfsig).toEqual([true]);
      expect(signatures[0]).toMatchObject({ level: 'signing_and_forms', allowed, valid: allowed });
      expect(signatures[0]!.changes.filter((c) => c.startsWith('field '))).toHaveLength(4);
    }
  });

  it('form filling by mutool of a qpdf object-stream document (a cross-reference stream update): signing_and_forms, valid', async () => {
    const file = join(dir, 'ostm.pdf');
    writeFileSync(join(dir, 'form.pdf'), corpus('pdflib-acroform.pdf'));
    const q = await runTool('qpdf', ['--object-streams=generate', join(dir, 'form.pdf'), file]);
    expect(q.code, q.stderr).toBe(0);
    const filled = await mutool('fill', await sign(new Uint8Array(readFileSync(file))));
    expect(Buffer.from(filled.subarray(-2048)).toString('latin1')).toContain('/Type/XRef');
    const { signatures, pdfsig } = await judge(filled);
    expect(pdfsig).toEqual([true]);
    expect(signatures[0]).toMatchObject({ level: 'signing_and_forms', allowed: true, valid: true });
  });

  it('a new ModDate and Producer in /Info, XMP metadata: dss_and_timestamps, allowed even by P=1', async () => {
    const certified = await sign(corpus('pdflib-acroform.pdf'), 1);
    for (const script of ['info', 'xmp']) {
      const { signatures, pdfsig } = await judge(await mutool(script, certified));
      expect(pdfsig).toEqual([true]);
      expect(signatures[0]).toEqual({ level: 'dss_and_timestamps', allowed: true, valid: true, changes: [] });
    }
  });

  it('a new AcroForm /DR with its fonts and a /DA: signing_and_forms under P=2, the fonts not counted as annotations', async () => {
    const { signatures, pdfsig } = await judge(await mutool('dr', await sign(corpus('pdflib-acroform.pdf'), 2)));
    expect(pdfsig).toEqual([true]);
    expect(signatures[0]).toMatchObject({ level: 'signing_and_forms', allowed: true, valid: true });
    expect(signatures[0]!.changes.join('\n')).not.toMatch(/annotation/);
  });

  it('a catalog value re-encoded (/Lang from UTF-16 hex to a literal string): none', async () => {
    const { signatures } = await judge(await mutool('lang', await sign(await taggedForm(), 1)));
    expect(signatures[0]).toEqual({ level: 'none', allowed: true, valid: true, changes: [] });
  });

  it('the structure tree (a StructElem for the signature field, the parent tree) and a /Dests name: signing_and_forms', async () => {
    const { signatures, pdfsig } = await judge(await mutool('struct', await sign(await taggedForm(), 2)));
    expect(pdfsig).toEqual([true]);
    expect(signatures[0]).toMatchObject({ level: 'signing_and_forms', allowed: true, valid: true });
  });

  it('a later locking signature field (/Lock), then signed in: signing_and_forms; both signatures valid', async () => {
    const locked = await mutool('lockfield', await sign(corpus('pdflib-acroform.pdf'), 2));
    const { signatures, pdfsig } = await judge(await sign(locked));
    expect(pdfsig).toEqual([true, true]);
    expect(signatures.map((s) => [s.level, s.allowed, s.valid])).toEqual([['signing_and_forms', true, true], ['none', true, true]]);
  });

  it('B-LT by localsign, its /DSS replaced by mutool\'s newer one, then a document timestamp (B-LTA): dss_and_timestamps, all valid', async () => {
    const signed = await sign(corpus('pdflib-acroform.pdf'), 1);
    const lt = addDss(signed, { certs: pki.chain, ocsps: [], crls: [] }, []);
    const caFile = join(dir, 'extra-cert.der');
    writeFileSync(caFile, Buffer.from(tsa.caCertPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));
    const replaced = await mutool('dss-replace', lt, caFile);
    const prepared = prepareDocTimestamp(replaced);
    const nonce = 12345n;
    const token = parseTimestampResponse(await tsa.reply(buildTimestampRequestForImprint(prepared.digest, nonce)), { imprint: prepared.digest, nonce });
    const lta = finishDocTimestamp(prepared, token);
    const { signatures, pdfsig } = await judge(lta);
    // poppler 22.12 lists the document timestamp but cannot check /ETSI.RFC3161 (long-term.test.ts).
    expect(pdfsig[0]).toBe(true);
    expect(signatures.map((s) => [s.level, s.allowed, s.valid])).toEqual([['dss_and_timestamps', true, true], ['none', true, true]]);
  });
});

describe('P=3 adds annotations', () => {
  it('a text annotation by mutool: annotations; allowed after approval and P=3, not P=2', async () => {
    for (const [certify, allowed] of [[undefined, true], [3, true], [2, false]] as const) {
      const { signatures, pdfsig } = await judge(await mutool('annotate', await sign(corpus('pdflib-acroform.pdf'), certify)));
      expect(pdfsig).toEqual([true]);
      expect(signatures[0]).toMatchObject({ level: 'annotations', allowed, valid: allowed });
    }
  });
});

describe('other, whatever the permission: pages, content, /Fields', () => {
  it.each([
    ['a page added', 'add', /the page tree/],
    ['a page removed', 'remove', /the page tree/],
    ['pages reordered', 'reorder', /the page tree/],
    ['the first page\'s content stream replaced', 'content', /page object \d+: \/Contents changed/],
    ['/Fields replaced (a field left out)', 'fields', /the AcroForm: \/Fields: object \d+ removed/],
  ])('%s by mutool: other, the signature invalid', async (_, what, line) => {
    const source = what === 'fields' ? corpus('pdflib-acroform.pdf') : corpus('pdflib-xref-table.pdf');
    const { signatures, pdfsig } = await judge(await mutool('pages', await sign(source), what));
    expect(pdfsig).toEqual([true]);
    expect(signatures[0]).toMatchObject({ level: 'other', allowed: false, valid: false });
    expect(signatures[0]!.changes.join('\n')).toMatch(line);
  });
});
