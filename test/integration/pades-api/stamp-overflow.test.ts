/**
 * Issue 19 through the API, on a real service process: a 1,000-character signer_name (the
 * documented maximum) is cut with "…" on a readable line instead of shrinking to a hairline, and
 * the DONE answer's `warnings` names the line (CONTRACT: a stamp line shortened to fit at a
 * readable size is named in `warnings`). Read back with poppler: the stamp's text as pdftotext
 * extracts it, its glyph heights, and pdfsig's verdict.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, postJson, type Call } from '../../helpers/api-fixtures';
import { runPdfsig, runTool } from '../../helpers/pdf-tools';
import { pdftotextWords, signatureWidgets } from '../../helpers/pdf-words';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: Call;
let pades: string;
const input = readFileSync(join(__dirname, '../../vectors/pdf/pdflib-xref-table.pdf'));

beforeAll(async () => {
  tmp = makeTmpHome('localsign-stamp-overflow-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  pades = (await credentialKeys(call)).pades[0]!;
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

async function signDone(fields: Record<string, unknown>): Promise<{ result: Record<string, unknown>; file: string; signed: Buffer }> {
  const res = await postJson(call, '/v1/pades/sign', { pdf_base64: input.toString('base64'), credential_key: pades, ...fields });
  const body = (await res.json()) as { request_id: string };
  expect(res.status, JSON.stringify(body)).toBe(202);
  const result = await waitForResult(call, body.request_id);
  expect(result.status, JSON.stringify(result).slice(0, 300)).toBe('DONE');
  const signed = Buffer.from(String(result.pdf_base64), 'base64');
  const file = join(tmp.home, `${body.request_id}.pdf`);
  writeFileSync(file, signed);
  return { result, file, signed };
}

/** pdftotext's words inside the stamp's box (helpers/pdf-words.ts: -bbox, in PDF points), with their heights. */
async function stampWords(signed: Buffer): Promise<{ text: string; height: number }[]> {
  const [widget] = await signatureWidgets(new Uint8Array(signed));
  expect(widget).toBeDefined();
  const page = (await pdftotextWords(new Uint8Array(signed))).find((p) => p.page === widget!.page)!;
  const box = widget!.rect;
  return page.words
    .filter((w) => w.x1 >= box.x1 - 0.5 && w.x2 <= box.x2 + 0.5 && w.y1 >= box.y1 - 0.5 && w.y2 <= box.y2 + 0.5)
    .map((w) => ({ text: w.text, height: w.y2 - w.y1 }));
}

describe('a stamp line too long for its box (issue 19)', () => {
  it('a 1,000-character signer_name: DONE, cut with "…" at 6 pt or more, the line named in warnings, pdfsig valid', async () => {
    const name = `Ann ${'Example'.repeat(143)}`.slice(0, 1000);
    expect(name).toHaveLength(1000);
    const { result, file, signed } = await signDone({ signer_name: name, reason: 'Approval', location: 'Madrid', variables: { reference: 'INV-42' } });
    // The default design's first line is "Digitally signed by {{signer_name}}" (20 + 1,000 characters).
    expect(result.warnings).toEqual([expect.stringMatching(/^stamp line 1 was shortened to fit the stamp's width at 6 pt: \d+ of its 1020 characters are shown, cut with "…" \("Digitally signed by Ann Example/)]);

    const words = await stampWords(signed);
    const line = words.map((w) => w.text).join(' ');
    expect(line).toContain('Digitally signed by Ann Example');
    const cut = words.find((w) => w.text.endsWith('…'));
    expect(cut, line).toBeDefined();
    expect(cut!.text).toMatch(/^(Example)*[A-Za-z]*…$/);
    // A glyph box of DejaVu Sans is 1.164 em tall (ascent 0.928 + descent 0.236): 6 pt is about 7.
    for (const w of words) expect(w.height, w.text).toBeGreaterThanOrEqual(6 * 1.164 - 0.05);
    expect(words.some((w) => w.text === 'Approval')).toBe(true);

    const report = await runPdfsig(file);
    expect(report.signatures.filter((s) => s.signed).map((s) => s.validation)).toEqual(['Signature is Valid.']);
  });

  it('a stamp that fits adds no warnings', async () => {
    const { result } = await signDone({ signer_name: 'Ann Example', reason: 'Approval', location: 'Madrid', variables: { reference: 'INV-42' } });
    expect(result.warnings).toBeUndefined();
  });

  it('a line whose placeholders have no value is not drawn, and warnings name it', async () => {
    // Only signer_name: "Reason:", "Location:" and the reference line would read as blank.
    const { result, file } = await signDone({ signer_name: 'Ann Example' });
    expect(result.warnings).toEqual([
      'stamp line 3 is not drawn: its placeholder {{reason}} has no value in this request (give reason), and the line would read as blank',
      'stamp line 4 is not drawn: its placeholder {{location}} has no value in this request (give location), and the line would read as blank',
      'stamp line 5 is not drawn: its placeholder {{reference}} has no value in this request (give variables.reference), and the line would read as blank',
    ]);
    // poppler reads the lines that are drawn, and none of the blank ones.
    const text = (await runTool('pdftotext', ['-layout', file, '-'])).stdout;
    expect(text).toContain('Digitally signed by Ann Example');
    expect(text).not.toMatch(/Reason:|Location:/);
  });
});
