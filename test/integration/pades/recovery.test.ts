/**
 * Damaged files (issue 17): signed by the engine, then damaged by hand, and read back through
 * `localsign verify --json` and `POST /v1/pades/verify`. As qpdf and pdfsig do, the cross-reference
 * data is rebuilt by scanning the file: every signature that can be read is reported, and the damage
 * is a document-level problem (`problems`, `valid: false`). pdfsig, which reconstructs too, gives
 * the same digest verdicts. A PDF that cannot be read at all is still a report; input that is not
 * a PDF is a 422 from the route; signing keeps refusing broken cross-reference data (CONTRACT).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDss } from '../../../src/pades/sign/dss';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { CORPUS_DIR, signWithEngine } from '../../helpers/pdf-corpus';
import { addAnnotation } from '../../helpers/pdf-revisions';
import { runPdfsig, runTool } from '../../helpers/pdf-tools';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { makeTmpHome } from '../../helpers/tmp-home';

interface Report {
  valid: boolean;
  problems: string[];
  signatures: { valid: boolean; field: string; digest_valid: boolean; covers_whole_document: boolean; changes_after: { level: string }; problems: string[] }[];
}

const home = makeTmpHome('localsign-recovery-');
let pki: TestPki;
let svc: ServiceProcess;
let call: ReturnType<typeof authed>;
let padesKey: string;

beforeAll(async () => {
  pki = await createTestPki({ algorithm: 'rsa', intermediate: true, signerCn: 'Recovery Signer' });
  const wrapper = initEmbeddedWithWrapper(home.home);
  svc = await startServiceProcess({ home: home.home });
  call = authed(svc.url, wrapper);
  const list = (await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string }[] };
  padesKey = list.credentials.find((c) => c.type === 'pades')!.credential_key;
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  home.cleanup();
});

const corpus = (name: string) => new Uint8Array(readFileSync(join(CORPUS_DIR, name)));
const sign = async (pdf: Uint8Array) => (await signWithEngine(pdf, { ...pki, algorithm: 'rsa' })).output;
/** An unsigned update after the signatures: a /DSS (§7.5.6), as a later tool would add. */
const withDss = (pdf: Uint8Array) => addDss(pdf, { certs: pki.chain, ocsps: [], crls: [] }, []);
const text = (pdf: Uint8Array) => Buffer.from(pdf).toString('latin1');
const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'latin1'));

/** The last `startxref` value moved by `delta` bytes, the rest of the file unchanged. */
function moveStartxref(pdf: Uint8Array, delta: number): { pdf: Uint8Array; points: number } {
  const t = text(pdf);
  const at = t.lastIndexOf('startxref');
  const m = /^startxref(\s+)(\d+)/.exec(t.slice(at))!;
  const points = Number(m[2]) + delta;
  return { pdf: bytes(t.slice(0, at) + `startxref${m[1]}${points}` + t.slice(at + m[0].length)), points };
}

/** The last trailer's /Prev replaced by 0 (the file's header: no section there), padded to the same length. */
function prevZero(pdf: Uint8Array): Uint8Array {
  const t = text(pdf);
  const at = t.lastIndexOf('/Prev ');
  const m = /^\/Prev (\d+)/.exec(t.slice(at))!;
  return bytes(t.slice(0, at) + `/Prev 0${' '.repeat(m[1]!.length - 1)}` + t.slice(at + m[0].length));
}

/** `addAnnotation`'s update, whose table then lists every object `shift` bytes off. */
function annotationWithWrongOffsets(pdf: Uint8Array, shift: number): Uint8Array {
  const updated = text(addAnnotation(pdf));
  const table = updated.lastIndexOf('\nxref\n');
  const tail = updated.slice(table).replace(/^(\d{10}) (\d{5}) n/gm, (line, off: string, gen: string) => (Number(off) === 0 ? line : `${String(Number(off) + shift).padStart(10, '0')} ${gen} n`));
  return bytes(updated.slice(0, table) + tail);
}

async function cli(name: string, pdf: Uint8Array): Promise<{ report: Report; status: number | null; file: string }> {
  const file = join(home.home, name);
  writeFileSync(file, pdf);
  const r = await runCliAsync(['verify', file, '--json'], { home: home.home });
  return { report: parseJson<Report>(r), status: r.status, file };
}

async function route(pdf: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await call('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from(pdf).toString('base64') }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * The CLI's and the route's reports agree on everything that does not depend on the trust
 * anchors; pdfsig, which reconstructs classic tables (not xref streams: "Couldn't find trailer
 * dictionary"), gives the same digest verdict for every signature it finds.
 */
async function bothWays(name: string, pdf: Uint8Array, o: { pdfsigReads: boolean } = { pdfsigReads: true }): Promise<Report> {
  const [{ report, status, file }, answer] = await Promise.all([cli(name, pdf), route(pdf)]);
  expect(status).toBe(1);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const viaRoute = answer.body as unknown as Report;
  expect(viaRoute.problems).toEqual(report.problems);
  expect(viaRoute.valid).toBe(false);
  expect(viaRoute.signatures.map((s) => [s.field, s.digest_valid, s.changes_after.level])).toEqual(report.signatures.map((s) => [s.field, s.digest_valid, s.changes_after.level]));
  const pdfsig = await runPdfsig(file);
  const found = pdfsig.signatures.filter((s) => s.signed);
  if (!o.pdfsigReads) {
    expect(found, pdfsig.raw).toEqual([]);
    expect(pdfsig.raw).toContain("Couldn't find trailer dictionary");
    return report;
  }
  expect(found.length, pdfsig.raw).toBeGreaterThan(0);
  for (const s of found) expect([s.name, report.signatures.find((r) => r.field === s.name)?.digest_valid], pdfsig.raw).toEqual([s.name, s.signatureValid]);
  return report;
}

describe('damaged cross-reference data: every readable signature reported, the damage named', () => {
  it('a startxref 10 bytes off, after two signatures and a /DSS update', async () => {
    const twice = await sign(await sign(corpus('cairo.pdf')));
    const { pdf, points } = moveStartxref(withDss(twice), 10);
    const report = await bothWays('startxref-off.pdf', pdf);
    expect(report.problems).toEqual([`cross-reference data is broken: no cross-reference section at byte ${points}; the objects were found by scanning the file`]);
    expect(report.signatures.map((s) => [s.digest_valid, s.covers_whole_document, s.changes_after.level])).toEqual([
      [true, false, 'signing_and_forms'],
      [true, false, 'dss_and_timestamps'],
    ]);
    expect(report.valid).toBe(false);
  });

  it('/Prev 0 in the last trailer', async () => {
    const once = await sign(corpus('pdflib-xref-table.pdf'));
    const report = await bothWays('prev-zero.pdf', prevZero(withDss(once)));
    expect(report.problems).toEqual(['cross-reference data is broken: no cross-reference section at byte 0; the objects were found by scanning the file']);
    expect(report.signatures.map((s) => [s.digest_valid, s.changes_after.level])).toEqual([[true, 'dss_and_timestamps']]);
  });

  it('a file cut short before its last cross-reference table: both signatures found, the second cut off', async () => {
    const twice = await sign(await sign(corpus('groff-man.pdf')));
    const cut = twice.subarray(0, text(twice).lastIndexOf('\nxref\n') + 1);
    const report = await bothWays('truncated.pdf', cut);
    expect(report.problems).toEqual(['cross-reference data is broken: no startxref near the end of the file; the objects were found by scanning the file']);
    expect(report.signatures.map((s) => s.digest_valid)).toEqual([true, false]);
    expect(report.signatures[1]!.problems[0]).toMatch(/^\/ByteRange \[0 \d+ \d+ \d+\] does not fit the file$/);
  });

  it('a file cut short inside its second signature\'s objects: the first still valid, the object cut off read as null', async () => {
    const twice = await sign(await sign(corpus('groff-man.pdf')));
    const t = text(twice);
    // Inside the last object the second signature added before its table (its widget or the AcroForm).
    const cut = twice.subarray(0, t.lastIndexOf(' 0 obj', t.lastIndexOf('\nxref\n')) + 20);
    // pdfsig's reconstruction finds the first signature only, as we do.
    const report = await bothWays('truncated-object.pdf', cut);
    expect(report.problems[0]).toBe('cross-reference data is broken: no startxref near the end of the file; the objects were found by scanning the file');
    expect(report.problems.slice(1).join('\n')).toMatch(/^cross-reference data is broken: object \d+ at byte \d+ is unreadable; read as null, found nowhere else$/m);
    expect(report.signatures[0]!.digest_valid).toBe(true);
  });

  it('a cross-reference table whose offsets miss their objects (an update after the signature)', async () => {
    const once = await sign(corpus('cairo.pdf'));
    const report = await bothWays('wrong-offsets.pdf', annotationWithWrongOffsets(once, 7));
    expect(report.problems.length).toBeGreaterThan(0);
    for (const p of report.problems) expect(p).toMatch(/^cross-reference data is broken: object \d+ 0 is not at byte \d+; read at byte \d+, where a scan of the file found it$/);
    // The page read where it really is: an annotation added, as without the damage.
    expect(report.signatures.map((s) => [s.digest_valid, s.changes_after.level])).toEqual([[true, 'annotations']]);
  });

  it('qpdf object streams: the catalog and fields found inside the object streams the scan decodes', async () => {
    const once = await sign(corpus('qpdf-object-streams.pdf'));
    const { pdf } = moveStartxref(withDss(once), -3);
    // Only xref streams, no `trailer` keyword: qpdf and pdfsig give up, mutool repairs it as we do.
    const report = await bothWays('object-streams.pdf', pdf, { pdfsigReads: false });
    const file = join(home.home, 'object-streams.pdf');
    expect((await runTool('qpdf', ['--check', file])).stderr).toContain('unable to find trailer dictionary while recovering damaged file');
    const mutool = await runTool('mutool', ['info', file]);
    expect([mutool.stderr, mutool.stdout]).toEqual([expect.stringContaining('repairing PDF document'), expect.stringContaining('Pages: 2')]);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/^cross-reference data is broken: .*; the objects were found by scanning the file$/);
    expect(report.signatures.map((s) => [s.digest_valid, s.changes_after.level])).toEqual([[true, 'dss_and_timestamps']]);
  });

  it('mutool\'s own signature in a file whose last startxref is wrong', async () => {
    const { pdf } = moveStartxref(withDss(corpus('mutool-signed.pdf')), 10);
    const report = await bothWays('mutool-damaged.pdf', pdf);
    expect(report.problems).toHaveLength(1);
    expect(report.signatures.map((s) => [s.field, s.digest_valid])).toEqual([['OtherTool', true]]);
  });
});

describe('what cannot be read at all, and what is not a PDF', () => {
  const unreadable = bytes('%PDF-1.7\n%\xe2\xe3\xcf\xd3\nthis is not a PDF body\n%%EOF\n');

  it('a PDF with no readable object: a report of no signatures saying why, from the CLI and the route', async () => {
    const { report, status } = await cli('unreadable.pdf', unreadable);
    expect(status).toBe(1);
    expect(report).toEqual({
      valid: false,
      signatures: [],
      problems: ['the PDF cannot be read: cross-reference data is broken: no startxref near the end of the file; scanning the file for objects found no document catalog (no trailer with /Root, no /Type /Catalog)'],
    });
    const answer = await route(unreadable);
    expect([answer.status, answer.body]).toEqual([200, report]);
    const human = await runCliAsync(['verify', join(home.home, 'unreadable.pdf')], { home: home.home });
    expect([human.status, human.stdout]).toEqual([1, `document: ${report.problems[0]}\nno signatures\noverall: INVALID\n`]);
  });

  it('input that is not a PDF: the route answers 422, the CLI prints a report saying so', async () => {
    const notPdf = bytes('GIF89a, not a PDF at all');
    const answer = await route(notPdf);
    expect(answer.status).toBe(422);
    expect(String(answer.body.error)).toMatch(/%PDF-/);
    const { report, status } = await cli('not-a-pdf.gif', notPdf);
    expect(status).toBe(1);
    expect(report.valid).toBe(false);
    expect(report.signatures).toEqual([]);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/%PDF-/);
  });

  it('a sound file has an empty document-level problems list', async () => {
    const { report } = await cli('sound.pdf', await sign(corpus('cairo.pdf')));
    expect(report.problems).toEqual([]);
    expect(report.signatures.map((s) => s.digest_valid)).toEqual([true]);
  });

  it('signing still refuses a damaged file: 422 naming the broken cross-reference data (CONTRACT)', async () => {
    const { pdf } = moveStartxref(withDss(corpus('cairo.pdf')), 10);
    const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from(pdf).toString('base64'), credential_key: padesKey }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: string }).error).toMatch(/^cross-reference data is broken: no cross-reference section at byte \d+$/);
  });
});
