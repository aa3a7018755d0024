import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintPadesBaselineB } from '../../helpers/pades-lint';
import { parseJson, runCli } from '../../helpers/cli';
import { startLocalTsa, type LocalTsa } from '../../helpers/local-tsa';
import { extractCms, qpdfCheck, runPdfsig } from '../../helpers/pdf-tools';
import { authed, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

interface Credential {
  credential_key: string;
  type: string;
  name: string;
}

async function samplePdf(pages = 2): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i += 1) doc.addPage([595, 842]);
  return Buffer.from(await doc.save());
}

/** Issue 3 "Done when": POST /v1/pades/sign -> DONE for both demo credentials, stamped or not, B-B and B-T. */
describe('PAdES through the API', () => {
  const home = makeTmpHome();
  let tsa: LocalTsa;
  let plain: ServiceProcess;
  let timestamped: ServiceProcess;
  let wrapper: { key: string; secret: string };
  let credentials: Credential[];
  let designs: { design_key: string; name: string }[];

  beforeAll(async () => {
    expect(runCli(['init', '--embedded'], { home: home.home }).status).toBe(0);
    wrapper = parseJson(runCli(['wrapper:create', '--json'], { home: home.home }));
    tsa = await startLocalTsa();
    plain = await startServiceProcess({ home: home.home });
    const call = authed(plain.url, wrapper);
    credentials = ((await (await call('/v1/credentials')).json()) as { credentials: Credential[] }).credentials.filter((c) => c.type === 'pades');
    designs = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string; name: string }[] }).designs;
  });
  afterAll(async () => {
    await plain?.stop();
    await timestamped?.stop();
    await tsa?.close();
    home.cleanup();
  });

  async function signAndCheck(service: ServiceProcess, body: Record<string, unknown>, name: string) {
    const call = authed(service.url, wrapper);
    const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(202);
    const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    const signed = Buffer.from(String(result.pdf_base64), 'base64');
    const input = Buffer.from(String(body.pdf_base64), 'base64');
    expect(signed.subarray(0, input.length).equals(input)).toBe(true);
    const file = join(home.home, `${name}.pdf`);
    writeFileSync(file, signed);
    const sig = await runPdfsig(file);
    expect(sig.signatures.at(-1)).toMatchObject({ signatureValid: true, coversWholeDocument: true, subFilter: 'ETSI.CAdES.detached' });
    expect((await qpdfCheck(file)).ok).toBe(true);
    expect(lintPadesBaselineB(new Uint8Array(signed))).toMatchObject({ ok: true, problems: [] });
    return { signed, file };
  }

  it('signs with both demo credentials, with the default design and with a design that needs a variable', async () => {
    expect(credentials.map((c) => c.name).sort()).toEqual(['Demo PAdES signer (P-256)', 'Demo PAdES signer (RSA-2048)']);
    const pdf = (await samplePdf()).toString('base64');
    const approval = designs.find((d) => d.name === 'Approval stamp')!;
    for (const c of credentials) {
      const { file } = await signAndCheck(plain, { pdf_base64: pdf, credential_key: c.credential_key, reason: 'Contract', location: 'Lisboa', signer_name: 'Zoë Ñandú' }, `default-${c.name}`);
      // The default design ("Standard signature stamp") is drawn on the last page with the filled text.
      const text = execFileSync('pdftotext', ['-f', '2', '-l', '2', file, '-'], { encoding: 'utf8' });
      expect(text).toContain('Digitally signed by Zoë Ñandú');
      expect(text).toContain('Reason: Contract');
      const stamped = await signAndCheck(plain, { pdf_base64: pdf, credential_key: c.credential_key, design_key: approval.design_key, variables: { approval_id: 'APR-2026-0042' } }, `approval-${c.name}`);
      const first = execFileSync('pdftotext', ['-f', '1', '-l', '1', stamped.file, '-'], { encoding: 'utf8' });
      expect(first).toContain('Approved: APR-2026-0042');
    }
  });

  it('writes /Reason, /Location and /Name into the signature dictionary', async () => {
    const { signed } = await signAndCheck(plain, { pdf_base64: (await samplePdf(1)).toString('base64'), credential_key: credentials[0]!.credential_key, reason: 'Budget', location: 'Porto', signer_name: 'Rui' }, 'fields');
    const text = signed.toString('latin1');
    expect(text).toContain('/Reason (Budget)');
    expect(text).toContain('/Location (Porto)');
    expect(text).toContain('/Name (Rui)');
    expect(text).toMatch(/\/M \(D:\d{14}/);
  });

  it('signs invisibly when no design applies (CONTRACT: invisible only when neither a design_key nor a default exists)', async () => {
    // The operator removes the default design from the embedded platform, then syncs.
    const file = join(home.home, 'embedded.json');
    const cfg = JSON.parse(readFileSync(file, 'utf8')) as { default_design_key: string | null };
    cfg.default_design_key = null;
    writeFileSync(file, JSON.stringify(cfg), { mode: 0o600 });
    const call = authed(plain.url, wrapper);
    expect((await call('/v1/sync', { method: 'POST' })).status).toBe(200);
    try {
      for (const c of credentials) {
        const listed = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; default_design_key: string | null }[] }).credentials;
        expect(listed.find((x) => x.credential_key === c.credential_key)!.default_design_key).toBeNull();
        const { signed, file: out } = await signAndCheck(plain, { pdf_base64: (await samplePdf(1)).toString('base64'), credential_key: c.credential_key, signer_name: 'Nobody Visible' }, `invisible-${c.name}`);
        expect(execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' })).not.toContain('Nobody Visible');
        // ISO 32000-1 §12.7.4.5: an invisible signature's widget has a zero-size /Rect.
        expect(signed.toString('latin1')).toMatch(/\/Rect\s*\[\s*0\s+0\s+0\s+0\s*\]/);
      }
    } finally {
      cfg.default_design_key = designs.find((d) => d.name === 'Standard signature stamp')!.design_key;
      writeFileSync(file, JSON.stringify(cfg), { mode: 0o600 });
      expect((await call('/v1/sync', { method: 'POST' })).status).toBe(200);
    }
  });

  it('signs a document over 16 MiB, which waits for its slot on disk rather than in memory', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    doc.context.register(doc.context.stream(Buffer.alloc(17 * 1024 * 1024, 0x41), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1] }));
    const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
    expect(pdf.length).toBeGreaterThan(16 * 1024 * 1024);
    await signAndCheck(plain, { pdf_base64: pdf.toString('base64'), credential_key: credentials[0]!.credential_key }, 'large');
  });

  it('produces B-T signatures when a timestamp authority is configured', async () => {
    // One serve per config dir: restart the same home with a timestamp authority.
    await plain.stop();
    timestamped = await startServiceProcess({ home: home.home, args: ['--tsa-url', tsa.url] });
    for (const c of credentials) {
      const { signed } = await signAndCheck(timestamped, { pdf_base64: (await samplePdf(1)).toString('base64'), credential_key: c.credential_key }, `bt-${c.name}`);
      const { cms } = extractCms(new Uint8Array(signed), 0);
      const dump = execFileSync('openssl', ['asn1parse', '-inform', 'DER'], { input: Buffer.from(cms), encoding: 'utf8' });
      // id-aa-signatureTimeStampToken in the unsigned attributes, and a TSTInfo inside it.
      expect(dump).toContain('id-smime-aa-timeStampToken');
      expect(dump).toContain('id-smime-ct-TSTInfo');
    }
    expect(tsa.requests).toBeGreaterThanOrEqual(2);
  });
});
