/**
 * Issue 11 through the API, on a real service process: a stamp moved off a LibreOffice
 * document's footnote and footer says so in the DONE answer's `warnings`; a design whose stamp
 * fits nowhere decides by its `on_conflict` (CONTRACT: a design's `stamp` may add `on_conflict`;
 * a PAdES result may add `warnings`), and "refuse" is a 422 before any 202.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, postJson, REQUEST_ID, type Call } from '../../helpers/api-fixtures';
import { CORPUS_DIR, generateFullPage } from '../../helpers/pdf-corpus';
import { qpdfCheck, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { overlaps, pdftotextWords, signatureWidgets } from '../../helpers/pdf-words';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: Call;
let pades: string;
const designKeys = { refuse: randomUUID(), newPage: randomUUID(), tinted: randomUUID() };

beforeAll(async () => {
  tmp = makeTmpHome('localsign-stamp-conflicts-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  // The operator adds designs to the embedded platform: the standard stamp with each policy.
  const file = join(tmp.home, 'embedded.json');
  const cfg = JSON.parse(readFileSync(file, 'utf8')) as { designs: { name: string; stamp: Record<string, unknown> }[] };
  const standard = cfg.designs.find((d) => d.name === 'Standard signature stamp')!;
  cfg.designs.push(
    { ...standard, design_key: designKeys.refuse, name: 'Refusing stamp', stamp: { ...standard.stamp, on_conflict: 'refuse' } } as (typeof cfg.designs)[number],
    { ...standard, design_key: designKeys.newPage, name: 'Signature page stamp', stamp: { ...standard.stamp, on_conflict: 'new_page' } } as (typeof cfg.designs)[number],
    { ...standard, design_key: designKeys.tinted, name: 'Tinted stamp', stamp: { ...standard.stamp, background: '#ffeecc' } } as (typeof cfg.designs)[number],
  );
  writeFileSync(file, JSON.stringify(cfg), { mode: 0o600 });
  svc = await startServiceProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  expect((await call('/v1/sync', { method: 'POST' })).status).toBe(200);
  pades = (await credentialKeys(call)).pades[0]!;
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = () => ({ home: tmp.home, reader: call });
/** Every placeholder of the standard stamp given a value: no line is left out for want of one. */
const FILLED = { signer_name: 'Ann Example', reason: 'Approval', location: 'Madrid', variables: { reference: 'INV-42' } };
const sign = (pdf: Uint8Array, extra: Record<string, unknown> = {}) =>
  postJson(call, '/v1/pades/sign', { pdf_base64: Buffer.from(pdf).toString('base64'), credential_key: pades, ...FILLED, ...extra });

async function signedDone(pdf: Uint8Array, extra: Record<string, unknown> = {}): Promise<{ result: Record<string, unknown>; signed: Buffer; file: string }> {
  const res = await sign(pdf, extra);
  const body = (await res.json()) as { request_id: string; status: string };
  expect([res.status, body.status]).toEqual([202, 'PENDING']);
  expect(body.request_id).toMatch(REQUEST_ID);
  const result = await waitForResult(call, body.request_id);
  expect(result.status, JSON.stringify(result).slice(0, 300)).toBe('DONE');
  const signed = Buffer.from(String(result.pdf_base64), 'base64');
  expect(signed.subarray(0, pdf.length).equals(Buffer.from(pdf))).toBe(true);
  const file = join(tmp.home, `${body.request_id}.pdf`);
  writeFileSync(file, signed);
  const report = await runPdfsig(file);
  expect(report.signatures.filter((s) => s.signed).map((s) => s.validation)).toEqual(['Signature is Valid.']);
  expect((await qpdfCheck(file)).ok).toBe(true);
  return { result, signed, file };
}

/** The colour poppler renders at PDF point (x, y) of page 1 (72 dpi, one pixel per point). */
async function pixel(file: string, x: number, y: number): Promise<number[]> {
  const out = join(tmp.home, 'pixel');
  const run = await runTool('pdftoppm', ['-r', '72', '-f', '1', '-l', '1', '-x', String(x), '-y', String(842 - y), '-W', '1', '-H', '1', '-singlefile', file, out]);
  expect(run.code).toBe(0);
  return [...readFileSync(`${out}.ppm`).subarray(-3)];
}

/** A certification signature's DocMDP entry (ISO 32000-1 §12.8.2.2) added to `pdf`. */
async function certify(pdf: Uint8Array, p: 2 | 3): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  const sig = doc.context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    Reference: [{ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', V: '1.2', P: p } }],
  });
  doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: doc.context.register(sig) }));
  return doc.save({ useObjectStreams: false });
}

describe('stamps that never hide the document, through the API', () => {
  it('the default design on the LibreOffice document: moved off the footnote and footer, and DONE says so', async () => {
    const input = new Uint8Array(readFileSync(join(CORPUS_DIR, 'libreoffice-footnotes.pdf')));
    const { result, signed } = await signedDone(input);
    expect(Object.keys(result).sort()).toEqual(['pdf_base64', 'request_id', 'stamp', 'status', 'warnings']);
    const [widget] = await signatureWidgets(signed);
    expect(widget!.page).toBe(3);
    // The result says where the stamp went: the page and box the widget has.
    expect(result.stamp).toEqual({ page: 3, page_count: 3, rect: [widget!.rect.x1, widget!.rect.y1, widget!.rect.x2, widget!.rect.y2] });
    expect(result.warnings).toEqual([`the stamp was moved from (36, 36) to (${widget!.rect.x1}, ${widget!.rect.y1}) on page 3: the design's box covered the page's content`]);
    const words = (await pdftotextWords(input)).find((p) => p.page === 3)!.words;
    expect(words.filter((w) => overlaps(w, widget!.rect))).toEqual([]);
  });

  it('"refuse": a 422 before any 202, naming the page and the policy', async () => {
    const before = ((await (await call('/v1/results?limit=1000')).json()) as { results: unknown[] }).results.length;
    const res = await sign(await generateFullPage(), { design_key: designKeys.refuse });
    await expectError(res, 422, 'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content, and the design\'s stamp.on_conflict is "refuse"', where());
    // No request was created for it.
    expect(((await (await call('/v1/results?limit=1000')).json()) as { results: unknown[] }).results).toHaveLength(before);
  });

  it('"new_page": DONE with a signature page at the end and a warning', async () => {
    const input = await generateFullPage();
    const { result, signed, file } = await signedDone(input, { design_key: designKeys.newPage });
    expect(result.warnings).toEqual([
      'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content: the stamp is on a signature page added at the end (design stamp.on_conflict "new_page")',
    ]);
    expect((await runTool('pdfinfo', [file])).stdout).toMatch(/^Pages:\s+2$/m);
    expect(result.stamp).toEqual({ page: 2, page_count: 2, rect: [36, 36, 276, 108] });
    expect(await signatureWidgets(signed)).toMatchObject([{ page: 2, rect: { x1: 36, y1: 36, x2: 276, y2: 108 } }]);
  });

  it('"new_page" on a certified document: a 422, since a new page would break its certification', async () => {
    const input = await certify(await generateFullPage(), 2);
    await expectError(
      await sign(input, { design_key: designKeys.newPage }),
      422,
      'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content; the design\'s stamp.on_conflict "new_page" would add a page, which the document\'s certification (DocMDP P=2) forbids',
      where(),
    );
  });

  it('"overlap" (the default design, no on_conflict): DONE over the content, with a warning', async () => {
    const { result, signed } = await signedDone(await generateFullPage());
    expect(result.warnings).toEqual([
      'no free area of page 1 fits the stamp (240 x 72 pt) without covering the page\'s content: the stamp is drawn over it at the design\'s place (design stamp.on_conflict "overlap")',
    ]);
    expect(await signatureWidgets(signed)).toMatchObject([{ page: 1, rect: { x1: 36, y1: 36, x2: 276, y2: 108 } }]);
  });

  it('a stamp on free space has no warnings; the design\'s background colour fills the stamp', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]);
    const { result, file } = await signedDone(await doc.save(), { design_key: designKeys.tinted });
    expect(Object.keys(result).sort()).toEqual(['pdf_base64', 'request_id', 'stamp', 'status']);
    // Rendered by poppler: a point inside the stamp (36..276 x 36..108) away from its text is
    // #ffeecc, and one outside it is the page's white.
    expect(await pixel(file, 260, 42)).toEqual([0xff, 0xee, 0xcc]);
    expect(await pixel(file, 300, 42)).toEqual([0xff, 0xff, 0xff]);
  });
});
