import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, ISO_UTC, postJson, REQUEST_ID, smallPdf, type Call } from '../../helpers/api-fixtures';
import { extractCms, runPdfsig } from '../../helpers/pdf-tools';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { tempDir } from '../../helpers/temp-dir';

/**
 * CONTRACT POST /v1/pades/sign rows: the PDF is checked before 202 (a bad PDF is a 422, never an
 * async ERROR), the refusals say why, pdf_base64 repairs are logged, and a DONE result carries a
 * signed PDF that extends the input as an incremental update and that pdfsig judges valid.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let work: string;
let svc: ServiceProcess;
let call: Call;
let pades: string;
let pdf: Buffer;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-pades-');
  work = tempDir('localsign-api-pades-work-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  pades = (await credentialKeys(call)).pades[0]!;
  pdf = await smallPdf();
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

const where = () => ({ home: tmp.home, reader: call });
const sign = (pdfBase64: string, extra: Record<string, unknown> = {}) => postJson(call, '/v1/pades/sign', { pdf_base64: pdfBase64, credential_key: pades, ...extra });

async function accepted(res: Response): Promise<string> {
  const body = (await res.json()) as Record<string, unknown>;
  expect([res.status, body.status]).toEqual([202, 'PENDING']);
  expect(body.request_id).toMatch(REQUEST_ID);
  return body.request_id as string;
}

/** A PDF whose catalog names a certification signature with DocMDP /P (ISO 32000-1 §12.8.2.2). */
async function certified(p: 1 | 2): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  const sig = doc.context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    Reference: [{ Type: 'SigRef', TransformMethod: 'DocMDP', TransformParams: { Type: 'TransformParams', V: '1.2', P: p } }],
  });
  doc.catalog.set(PDFName.of('Perms'), doc.context.obj({ DocMDP: doc.context.register(sig) }));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** RFC 5652 §5.4: the digest is over the signed attributes re-tagged as an explicit SET OF. */
function signedAttributesSha256(cms: Uint8Array): string {
  const { asn1 } = forge;
  const content = asn1.fromDer(forge.util.createBuffer(Buffer.from(cms).toString('latin1')));
  const signedData = ((content.value as forge.asn1.Asn1[])[1]!.value as forge.asn1.Asn1[])[0]!;
  const parts = signedData.value as forge.asn1.Asn1[];
  const signerInfo = (parts[parts.length - 1]!.value as forge.asn1.Asn1[])[0]!;
  const attrs = (signerInfo.value as forge.asn1.Asn1[]).find((x) => x.tagClass === asn1.Class.CONTEXT_SPECIFIC && x.type === 0)!;
  const der = asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, attrs.value as forge.asn1.Asn1[])).getBytes();
  return createHash('sha256').update(Buffer.from(der, 'latin1')).digest('hex');
}

function qpdfEncrypt(input: Buffer): Buffer {
  const inPath = join(work, 'plain.pdf');
  const outPath = join(work, 'encrypted.pdf');
  writeFileSync(inPath, input);
  execFileSync('qpdf', ['--encrypt', 'user', 'owner', '256', '--', inPath, outPath]);
  return readFileSync(outPath);
}

describe('DONE', () => {
  it('returns a signed PDF: the input is an exact prefix, pdfsig finds one valid ETSI.CAdES.detached signature', async () => {
    const id = await accepted(await sign(pdf.toString('base64'), { reason: 'Approval', location: 'Lyon', signer_name: 'Ann Example', variables: { reference: 'INV-42' } }));
    const result = await waitForResult(call, id);
    // Every line of the stamp has its value: no warning; `stamp` says where it is.
    expect(Object.keys(result).sort()).toEqual(['pdf_base64', 'request_id', 'stamp', 'status']);
    expect(result.stamp).toEqual({ page: 1, page_count: 1, rect: [36, 36, 276, 108] });
    expect(result.status).toBe('DONE');
    const signed = Buffer.from(result.pdf_base64 as string, 'base64');
    expect(signed.subarray(0, pdf.length).equals(pdf)).toBe(true);
    expect(signed.length).toBeGreaterThan(pdf.length);
    const file = join(work, 'signed.pdf');
    writeFileSync(file, signed);
    const report = await runPdfsig(file);
    const sigs = report.signatures.filter((s) => s.signed);
    expect(sigs.map((s) => [s.signatureValid, s.subFilter, s.coversWholeDocument])).toEqual([[true, 'ETSI.CAdES.detached', true]]);
    // CONTRACT Security: the audit record's digest is the SHA-256 of the DER signed attributes.
    const audit = readFileSync(join(tmp.home, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.filter((a) => a.request_id === id)).toEqual([
      { ts: expect.stringMatching(ISO_UTC), request_id: id, wrapper_key: expect.stringMatching(/^wrp_/), credential_key: pades, kind: 'pades', digest: signedAttributesSha256(extractCms(signed, 0).cms), outcome: 'DONE' },
    ]);
    const entry = ((await (await call('/v1/results?limit=1')).json()) as { results: Record<string, unknown>[] }).results[0]!;
    expect(entry).toEqual({ request_id: id, status: 'DONE', kind: 'pades', credential_key: pades, created_at: expect.stringMatching(ISO_UTC), completed_at: expect.stringMatching(ISO_UTC) });
  });

  it('500 (spec §7, unexpected failure) when a DONE document vanished from results/; detail under its error_id', async () => {
    const p = await smallPdf('to be lost');
    const id = await accepted(await sign(p.toString('base64')));
    expect((await waitForResult(call, id)).status).toBe('DONE');
    rmSync(join(tmp.home, 'results', `${id}.pdf`));
    const message = 'the signed document of this request is missing from the results folder';
    await expectError(await call(`/v1/results/${id}`), 500, message, { ...where(), requestId: id });
  });

  it('a PDF certified with DocMDP P=2 is signed', async () => {
    const p2 = await certified(2);
    const result = await waitForResult(call, await accepted(await sign(p2.toString('base64'))));
    expect(result.status).toBe('DONE');
    expect(Buffer.from(result.pdf_base64 as string, 'base64').subarray(0, p2.length).equals(p2)).toBe(true);
  });
});

describe('refusals: 422 before 202, saying why', () => {
  it('data that is not a PDF: junk before the header, an HTML page, a raw PDF', async () => {
    const junk = Buffer.concat([Buffer.from('\r\n  \n'), pdf]).toString('base64');
    await expectError(await sign(junk), 422, /^pdf_base64 does not contain a PDF: it starts with "\\x0d\\x0a  \\x0a%PDF-1\.7\\x0a%[^"]*" where "%PDF-" was expected \(the header appears at byte 5; data before it is not repaired\)$/, where());
    const html = Buffer.from('<html><body>502 Bad Gateway</body></html>').toString('base64');
    await expectError(await sign(html), 422, 'pdf_base64 does not contain a PDF: it starts with "<html><body>502 " where "%PDF-" was expected', where());
    await expectError(await sign(pdf.toString('latin1')), 422, /^pdf_base64 holds a raw PDF, not base64: it starts with "%PDF-/, where());
    // Not base64 at all: the preview is of the raw input.
    await expectError(await sign('<html><body>oops</body></html>'), 422, 'pdf_base64 does not contain a PDF: it starts with "<html><body>oops" where "%PDF-" was expected', where());
  });

  it('an encrypted PDF', async () => {
    await expectError(await sign(qpdfEncrypt(pdf).toString('base64')), 422, 'the PDF is encrypted (/Encrypt in the trailer); encrypted PDFs cannot be signed', where());
  });

  it('a PDF certified with DocMDP P=1', async () => {
    await expectError(await sign((await certified(1)).toString('base64')), 422, 'the PDF is certified with DocMDP permission P=1: no change, not even a signature, is allowed', where());
  });

  it('broken cross-reference data (a wrong startxref offset) is named, not guessed', async () => {
    const text = pdf.toString('latin1');
    const at = text.lastIndexOf('startxref');
    const broken = Buffer.from(text.slice(0, at) + text.slice(at).replace(/startxref\s+(\d+)/, (_m, n: string) => `startxref\n${Number(n) - 7}`), 'latin1');
    await expectError(await sign(broken.toString('base64')), 422, /^cross-reference data is broken: /, where());
  });

  it('whitespace that is not a clean line layout', async () => {
    const b64 = pdf.toString('base64');
    await expectError(await sign(b64.slice(0, 40) + ' ' + b64.slice(40)), 422, /^pdf_base64 contains whitespace/, where());
    const uneven = b64.slice(0, 76) + '\n' + b64.slice(76, 140) + '\n' + b64.slice(140);
    await expectError(await sign(uneven), 422, /^pdf_base64 has lines of uneven width/, where());
    const wide = b64.match(/.{1,77}/g)!.join('\n');
    await expectError(await sign(wide), 422, /^pdf_base64 is wrapped at 77 characters, wider than 76; /, where());
  });

  it('nothing was accepted by the refusals above', async () => {
    const { results } = (await (await call('/v1/results')).json()) as { results: Record<string, unknown>[] };
    expect(results.map((r) => r.status)).toEqual(['DONE', 'DONE', 'DONE']);
  });
});

describe('pdf_base64 repairs: accepted, one warning naming the request', () => {
  const cases: [string, (b64: string) => string, string][] = [
    ['data-uri-prefix', (b) => 'data:application/pdf;base64,' + b, 'data-uri-prefix'],
    ['76-column lines (CRLF)', (b) => b.match(/.{1,76}/g)!.join('\r\n'), 'line-breaks'],
    ['64-column lines (PEM, LF)', (b) => b.match(/.{1,64}/g)!.join('\n') + '\n', 'line-breaks'],
    ['missing padding', (b) => b.replace(/=+$/, ''), 'padding'],
    ['URL-safe alphabet', (b) => b.replace(/\+/g, '-').replace(/\//g, '_'), 'url-safe-alphabet'],
    ['double encoding', (b) => Buffer.from(b).toString('base64'), 'double-encoded'],
  ];

  for (const [label, transform, repair] of cases) {
    it(label, async () => {
      // A PDF whose base64 needs padding and holds both + and /, so every transform changes something.
      let doc = pdf;
      for (let n = 0; ; n++) {
        const b = doc.toString('base64');
        if (b.endsWith('=') && b.includes('+') && b.includes('/')) break;
        doc = await smallPdf(`padding search ${n}`);
      }
      const input = transform(doc.toString('base64'));
      expect(input).not.toBe(doc.toString('base64'));
      const id = await accepted(await sign(input));
      const log = readFileSync(join(tmp.home, 'service.log'), 'utf8');
      const line = log.split('\n').filter((l) => l.includes(`${id}: pdf_base64 repaired`));
      expect(line).toHaveLength(1);
      expect(line[0]).toContain(repair);
      expect(svc.output()).toContain(`${id}: pdf_base64 repaired`);
      const result = await waitForResult(call, id);
      expect(result.status).toBe('DONE');
      expect(Buffer.from(result.pdf_base64 as string, 'base64').subarray(0, doc.length).equals(doc)).toBe(true);
    });
  }
});
