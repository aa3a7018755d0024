/**
 * Where prepare says the stamp is (`stampAt`: page, page count, box) against where qpdf, a reader
 * we did not write, finds the signature's widget in the prepared document: a page tree of nested
 * /Pages nodes, an empty field on a later page, a signature page added at the end.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDict, PDFDocument, PDFName, PDFRef, type PDFPage } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StampSpec } from '../../../src/domain/pades';
import { preparePades } from '../../../src/pades/sign/prepare';
import { generateFullPage } from '../../helpers/pdf-corpus';
import { qpdfSignatureFields } from '../../helpers/pdf-tools';
import { tempDir } from '../../helpers/temp-dir';
import { createTestPki, type TestPki } from '../../helpers/test-pki';

const STAMP: StampSpec = { page: 'last', x: 36, y: 36, width: 240, height: 72, lines: [{ text: 'Signed by A. Signer', size: 10 }] };
const signingTime = new Date('2026-01-02T03:04:05Z');

/**
 * Five pages under a nested tree: the root's kids are a /Pages node with pages 1-2, page 3 itself,
 * and a /Pages node with pages 4-5. With `fieldOn`, an empty signature field's widget on that page.
 */
async function nestedTree(fieldOn?: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const pages: PDFPage[] = [];
  for (let i = 0; i < 5; i++) pages.push(doc.addPage([595, 842]));
  const ctx = doc.context;
  const rootRef = doc.catalog.get(PDFName.of('Pages')) as PDFRef;
  const inner = (members: PDFPage[]) => {
    const ref = ctx.nextRef();
    ctx.assign(ref, ctx.obj({ Type: 'Pages', Parent: rootRef, Kids: members.map((p) => p.ref), Count: members.length }));
    for (const p of members) p.node.set(PDFName.of('Parent'), ref);
    return ref;
  };
  const first = inner(pages.slice(0, 2));
  const last = inner(pages.slice(3));
  const root = ctx.lookup(rootRef, PDFDict);
  root.set(PDFName.of('Kids'), ctx.obj([first, pages[2]!.ref, last]));
  if (fieldOn) {
    const page = pages[fieldOn - 1]!;
    const widget = ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Widget', FT: 'Sig', T: 'Approval', F: 4, Rect: [300, 500, 520, 580], P: page.ref }));
    page.node.set(PDFName.of('Annots'), ctx.obj([widget]));
    doc.catalog.set(PDFName.of('AcroForm'), ctx.obj({ Fields: [widget], SigFlags: 3 }));
  }
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}

describe("prepare's stampAt is where qpdf finds the widget", () => {
  let pki: TestPki;
  const dir = tempDir('localsign-stamp-location-');
  beforeAll(async () => {
    pki = await createTestPki({ algorithm: 'p256' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function prepared(pdf: Uint8Array, stamp: StampSpec | null, name: string) {
    const out = await preparePades({ pdf, certificateChain: pki.chain, signingTime, stamp });
    const file = join(dir, `${name}.pdf`);
    writeFileSync(file, out.pdf);
    const read = await qpdfSignatureFields(file);
    return { stampAt: out.stampAt, read };
  }

  it('the last page of a nested page tree: page 5 of 5', async () => {
    const { stampAt, read } = await prepared(await nestedTree(), STAMP, 'nested');
    expect(read.fields).toHaveLength(1);
    expect(stampAt).toEqual({ page: read.fields[0]!.page, pageCount: read.pageCount, rect: read.fields[0]!.rect });
    expect(stampAt).toEqual({ page: 5, pageCount: 5, rect: [36, 36, 276, 108] });
  });

  it("an empty field on page 4 takes the stamp at its own box: page 4, counted up the tree from the widget's /P", async () => {
    const { stampAt, read } = await prepared(await nestedTree(4), STAMP, 'field');
    expect(read.fields).toHaveLength(1);
    expect(stampAt).toEqual({ page: 4, pageCount: 5, rect: [300, 500, 520, 580] });
    expect(stampAt).toEqual({ page: read.fields[0]!.page, pageCount: read.pageCount, rect: read.fields[0]!.rect });
  });

  it('a signature page added at the end counts in page_count', async () => {
    // A page full of text: no free area fits the stamp.
    const { stampAt, read } = await prepared(await generateFullPage(), { ...STAMP, onConflict: 'new_page' }, 'new-page');
    expect(stampAt).toMatchObject({ page: 2, pageCount: 2 });
    expect(stampAt).toEqual({ page: read.fields[0]!.page, pageCount: read.pageCount, rect: read.fields[0]!.rect });
  });

  it('an invisible signature has none', async () => {
    const { stampAt, read } = await prepared(await nestedTree(), null, 'invisible');
    expect(stampAt).toBeNull();
    expect(read.fields.map((f) => f.rect)).toEqual([[0, 0, 0, 0]]);
  });
});
