/**
 * Issue 18 through the API, on a real service process: the stamp's place is decided once, by the
 * check before the 202, and carried into the job; what that decision said (the stamp moved off
 * the page's footer) is in the DONE answer's `warnings` and in the signed document. A request
 * resumed after a restart carries nothing: its prepare decides again, the same way.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, postJson, REQUEST_ID, type Call } from '../../helpers/api-fixtures';
import { leavePendingCopy } from '../../helpers/pending-request';
import { runPdfsig } from '../../helpers/pdf-tools';
import { overlaps, pdftotextWords, signatureWidgets, type SignatureWidget } from '../../helpers/pdf-words';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

const MOVED = 'the stamp was moved from (36, 36) to (36, 54) on page 1: the design\'s box covered the page\'s content';

/** One A4 page with a footer where the default design's stamp (36, 36, 240 x 72) would go. */
async function footerPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText('A contract of one page', { x: 56, y: 780, size: 18, font });
  page.drawText('Page 1 of 1 - a footer across the foot of the page', { x: 56, y: 40, size: 10, font });
  return doc.save({ useObjectStreams: false });
}

describe('the stamp placement carried from the check before the 202 into the job', () => {
  const tmp = makeTmpHome('localsign-placement-carried-');
  let creds: { key: string; secret: string };
  let svc: ServiceProcess | undefined;
  let call: Call;
  let pades: string;
  let input: Uint8Array;
  let doneId: string;
  let first: SignatureWidget;

  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(tmp.home);
    svc = await startServiceProcess({ home: tmp.home });
    call = authed(svc.url, creds);
    pades = (await credentialKeys(call)).pades[0]!;
    input = await footerPdf();
  });

  afterAll(async () => {
    await svc?.stop();
    tmp.cleanup();
  });

  /** The DONE answer of `id`: its warnings, the signed document verified by poppler, its stamp. */
  async function signedResult(id: string): Promise<{ result: Record<string, unknown>; widget: SignatureWidget }> {
    const result = await waitForResult(call, id);
    expect(result.status, JSON.stringify(result).slice(0, 300)).toBe('DONE');
    const signed = Buffer.from(String(result.pdf_base64), 'base64');
    expect(signed.subarray(0, input.length).equals(Buffer.from(input))).toBe(true);
    const file = join(tmp.home, `${id}.pdf`);
    writeFileSync(file, signed);
    expect((await runPdfsig(file)).signatures.filter((s) => s.signed).map((s) => s.validation)).toEqual(['Signature is Valid.']);
    const widgets = await signatureWidgets(signed);
    expect(widgets).toHaveLength(1);
    const w = widgets[0]!;
    // The result names the page and the box the widget has, however the placement was decided.
    expect(result.stamp).toMatchObject({ page: w.page, rect: [w.rect.x1, w.rect.y1, w.rect.x2, w.rect.y2] });
    return { result, widget: w };
  }

  it('signs where the check put the stamp, and the check\'s warning is in the result', async () => {
    const res = await postJson(call, '/v1/pades/sign', { pdf_base64: Buffer.from(input).toString('base64'), credential_key: pades, signer_name: 'Ann Example', reason: 'Approval', location: 'Madrid', variables: { reference: 'INV-42' } });
    const body = (await res.json()) as { request_id: string; status: string };
    expect([res.status, body.status]).toEqual([202, 'PENDING']);
    expect(body.request_id).toMatch(REQUEST_ID);
    doneId = body.request_id;
    const { result, widget } = await signedResult(doneId);
    expect(result.warnings).toEqual([MOVED]);
    expect(widget).toMatchObject({ page: 1, rect: { x1: 36, y1: 54, x2: 276, y2: 126 } });
    // The stamp covers none of the page's words: the footer it was moved off included.
    const words = (await pdftotextWords(input)).find((p) => p.page === 1)!.words;
    expect(words.filter((w) => overlaps(w, widget.rect))).toEqual([]);
    first = widget;
  });

  it('a request resumed after a restart has no carried placement: prepare decides it, the same', async () => {
    await svc!.stop();
    // Accepted (its record and its document durable) but not run when the service stopped.
    const resumedId = leavePendingCopy(join(tmp.home, 'requests.jsonl'), doneId);
    writeFileSync(join(tmp.home, 'work', `${resumedId}.pdf`), input, { mode: 0o600 });
    svc = await startServiceProcess({ home: tmp.home });
    call = authed(svc.url, creds);
    const { result, widget } = await signedResult(resumedId);
    expect(svc.output()).toMatch(/after restart: 1 request\(s\) resumed, 0 set to ERROR/);
    expect(result.warnings).toEqual([MOVED]);
    expect(widget).toEqual(first);
  });
});
