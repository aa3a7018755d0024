import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, HASH_A, smallPdf, type Call } from '../../helpers/api-fixtures';
import { generateLargeImage } from '../../helpers/pdf-corpus';
import { runPdfsig } from '../../helpers/pdf-tools';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { startSilentServer } from '../lifecycle/_load';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * CONTRACT extensions for large documents: `POST /v1/pades/sign` with `Content-Type:
 * application/pdf` (the PDF as the body, the other fields as query parameters) and `GET
 * /v1/results/{id}/pdf` (the signed PDF streamed from disk, 404 until DONE).
 */
describe('the raw PDF transport', () => {
  const tmp = makeTmpHome();
  let svc: ServiceProcess;
  let call: Call;
  let creds: { key: string; secret: string };
  let pades: string;
  let evm: string;
  const where = () => ({ home: tmp.home, reader: call });

  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(tmp.home);
    svc = await startServiceProcess({ home: tmp.home, args: ['--max-body', String(160 * 1024 * 1024)] });
    call = authed(svc.url, creds);
    const keys = await credentialKeys(call);
    [pades, evm] = [keys.pades[0]!, keys.evm[0]!];
  });
  afterAll(async () => {
    await svc?.stop();
    tmp.cleanup();
  });

  const raw = (query: string, body: Uint8Array, type = 'application/pdf') =>
    call(`/v1/pades/sign?${query}`, { method: 'POST', body, headers: { 'content-type': type } });

  /** One call: `?wait` holds the PENDING request, then the PDF comes (no base64 result read). */
  async function signedBytes(id: string): Promise<Buffer> {
    const res = await call(`/v1/results/${id}/pdf?wait=30`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    return bytes;
  }

  it('signs a PDF sent as the body, with the fields and variables as query parameters', async () => {
    const input = await smallPdf('raw transport');
    const designs = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string; name: string }[] }).designs;
    const approval = designs.find((d) => d.name === 'Approval stamp')!.design_key;
    const res = await raw(`credential_key=${pades}&design_key=${approval}&var.approval_id=A-77&signer_name=${encodeURIComponent('Zoë')}`, input);
    expect(res.status, await res.clone().text()).toBe(202);
    const id = ((await res.json()) as { request_id: string }).request_id;
    const signed = await signedBytes(id);
    expect(signed.subarray(0, input.length).equals(input)).toBe(true);
    const file = join(tmp.home, 'raw.pdf');
    writeFileSync(file, signed);
    const report = await runPdfsig(file);
    expect(report.signatures[0]!.validation).toBe('Signature is Valid.');
    expect(report.signatures[0]!.coversWholeDocument).toBe(true);
  });

  it('refuses what the JSON transport refuses, naming the query parameter', async () => {
    const pdf = await smallPdf();
    await expectError(await raw('credential_key=' + pades + '&surprise=1', pdf), 422, 'unknown field: surprise; allowed: credential_key, design_key, reason, location, signer_name, level, certify', where());
    await expectError(await raw(`credential_key=${pades}&credential_key=${pades}`, pdf), 422, 'credential_key must be given once', where());
    await expectError(await raw('', pdf), 422, 'credential_key is required', where());
    await expectError(await raw(`credential_key=${pades}&reason=${'x'.repeat(1001)}`, pdf), 422, 'reason must be at most 1000 characters, got 1001', where());
    await expectError(await raw(`credential_key=${pades}&var.nope=1`, pdf), 422, /^unknown variable for design "Standard signature stamp": nope/, where());
    await expectError(await raw(`credential_key=${pades}`, Buffer.from('<html>502 Bad Gateway</html>')), 422, 'the request body does not contain a PDF: it starts with "<html>502 Bad Ga" where "%PDF-" was expected', where());
    await expectError(await raw(`credential_key=${pades}`, new Uint8Array(0)), 422, 'the request body is empty; expected a PDF, whose bytes start with "%PDF-"', where());
  });

  it('GET /v1/results/{id}/pdf is 404 for an unknown id and for a blockchain request', async () => {
    await expectError(await call('/v1/results/req_nope/pdf'), 404, 'no request req_nope', where());
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: HASH_A, credential_key: evm }) });
    const id = ((await res.json()) as { request_id: string }).request_id;
    await waitForResult(call, id);
    await expectError(await call(`/v1/results/${id}/pdf`), 404, `${id} is a blockchain request: it has no PDF`, { ...where(), requestId: id });
  });

  it('GET /v1/results/{id}/pdf is 404 while PENDING; ?wait=N holds it N seconds first', async () => {
    const tsa = await startSilentServer(); // a timestamp authority that never answers keeps it PENDING
    const home = makeTmpHome();
    try {
      const waiting = await startServiceProcess({ home: home.home, args: ['--tsa-url', tsa.url] });
      try {
        const c = authed(waiting.url, initEmbeddedWithWrapper(home.home));
        const key = (await credentialKeys(c)).pades[0]!;
        const res = await c(`/v1/pades/sign?credential_key=${key}`, { method: 'POST', body: await smallPdf(), headers: { 'content-type': 'application/pdf' } });
        const id = ((await res.json()) as { request_id: string }).request_id;
        const pending = { home: home.home, reader: c, requestId: id };
        await expectError(await c(`/v1/results/${id}/pdf`), 404, `${id} has no signed PDF: it is PENDING`, pending);
        const t = Date.now();
        await expectError(await c(`/v1/results/${id}/pdf?wait=1`), 404, `${id} has no signed PDF: it is PENDING`, pending);
        expect(Date.now() - t).toBeGreaterThanOrEqual(900);
      } finally {
        await waiting.stop();
      }
    } finally {
      await tsa.close();
      home.cleanup();
    }
  });

  it('a large body is written to work/ as it arrives; one no request takes is removed (refused, or cut off by its client)', async () => {
    const uploads = () => readdirSync(join(tmp.home, 'work')).filter((f) => f.startsWith('upload-'));
    const big = Buffer.from(generateLargeImage(6));
    // Not a PDF: refused after the fields, naming the body (the header check reads the file's start).
    const junk = Buffer.concat([Buffer.from('<html>'), big]);
    await expectError(await raw(`credential_key=${pades}`, junk), 422, /^the request body does not contain a PDF: it starts with "<html>%PDF-1\.7/, where());
    // A PDF for an unknown credential.
    await expectError(await raw('credential_key=nope', big), 422, /^credential_key nope is not a known credential/, where());
    expect(uploads()).toEqual([]);
    // A client that announces 8 MiB, sends 1 MiB and goes away. Meanwhile what it sent is on
    // disk, not in the service's memory.
    const url = new URL(`/v1/pades/sign?credential_key=${pades}`, svc.url);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/pdf', 'content-length': String(8 * 1024 * 1024), 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret } });
    req.on('error', () => undefined);
    req.write(big.subarray(0, 1024 * 1024));
    const written = () => uploads().map((f) => statSync(join(tmp.home, 'work', f)).size);
    for (let i = 0; i < 100 && !(written()[0]! >= 1024 * 1024); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(written()).toEqual([1024 * 1024]);
    req.destroy();
    for (let i = 0; i < 100 && uploads().length > 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(uploads()).toEqual([]);
    // And one that signs: its upload became its work file, and nothing is left once it is DONE.
    const res = await raw(`credential_key=${pades}`, big);
    expect(res.status, await res.clone().text()).toBe(202);
    const signed = await signedBytes(((await res.json()) as { request_id: string }).request_id);
    expect(signed.subarray(0, big.length).equals(big)).toBe(true);
    expect(readdirSync(join(tmp.home, 'work')).filter((f) => !f.startsWith('.'))).toEqual([]);
  }, 60_000);

  it('a large pdf_base64 is decoded into work/ too: canonical or repaired, it signs; refused, it leaves nothing', async () => {
    const uploads = () => readdirSync(join(tmp.home, 'work')).filter((f) => f.startsWith('upload-'));
    const big = Buffer.from(generateLargeImage(6));
    const json = (pdf_base64: string, credential_key = pades) => call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64, credential_key }) });
    await expectError(await json(big.toString('base64'), 'nope'), 422, /^credential_key nope is not a known credential/, where());
    expect(uploads()).toEqual([]);
    // Canonical base64 goes to a file as it is decoded; base64 with line breaks (a repair) in memory, as before.
    const wrapped = big.toString('base64').replace(/.{76}/g, '$&\r\n');
    for (const text of [big.toString('base64'), wrapped]) {
      const res = await json(text);
      expect(res.status, await res.clone().text()).toBe(202);
      const signed = await signedBytes(((await res.json()) as { request_id: string }).request_id);
      expect(signed.subarray(0, big.length).equals(big)).toBe(true);
    }
    expect(readdirSync(join(tmp.home, 'work')).filter((f) => !f.startsWith('.'))).toEqual([]);
  }, 60_000);

  it('a large canonical pdf_base64 is decoded as it arrives; one found otherwise late in the body is answered as before', async () => {
    const uploads = () => readdirSync(join(tmp.home, 'work')).filter((f) => f.startsWith('upload-'));
    const big = Buffer.from(generateLargeImage(6));
    const text = big.toString('base64');
    const body = Buffer.from(JSON.stringify({ credential_key: pades, pdf_base64: text }));
    // Half the body sent: the document's first part is already decoded in work/, a PDF's bytes.
    const url = new URL('/v1/pades/sign', svc.url);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret } });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let t = '';
        res.on('data', (d: Buffer) => (t += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, text: t }));
      });
      req.on('error', reject);
    });
    req.write(body.subarray(0, body.length >> 1));
    const decoded = () => uploads().map((f) => readFileSync(join(tmp.home, 'work', f)));
    for (let i = 0; i < 100 && !(decoded()[0]?.length! >= 2 * 1024 * 1024); i += 1) await new Promise((r) => setTimeout(r, 50));
    const part = decoded()[0]!;
    expect(part.length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(part.equals(big.subarray(0, part.length))).toBe(true);
    req.end(body.subarray(body.length >> 1));
    const accepted = await answer;
    expect(accepted.status, accepted.text).toBe(202);
    const signed = await signedBytes((JSON.parse(accepted.text) as { request_id: string }).request_id);
    expect(signed.subarray(0, big.length).equals(big)).toBe(true);
    // Past the decoded part: an escaped solidus (JSON.parse reads it as "/") signs; a URL-safe
    // character among standard ones is the tolerance rules' refusal, whatever was decoded before it.
    const late = text.indexOf('/', 4 * 1024 * 1024);
    const escaped = `{"credential_key":"${pades}","pdf_base64":"${text.slice(0, late)}\\/${text.slice(late + 1)}"}`;
    const res = await call('/v1/pades/sign', { method: 'POST', body: escaped });
    expect(res.status, await res.clone().text()).toBe(202);
    const again = await signedBytes(((await res.json()) as { request_id: string }).request_id);
    expect(again.subarray(0, big.length).equals(big)).toBe(true);
    const mixed = `${text.slice(0, late)}_${text.slice(late + 1)}`;
    const refused = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ credential_key: pades, pdf_base64: mixed }) });
    await expectError(refused, 422, /^pdf_base64 mixes the standard \(\+ \/\) and URL-safe/, where());
    for (let i = 0; i < 100 && uploads().length > 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(join(tmp.home, 'work')).filter((f) => !f.startsWith('.'))).toEqual([]);
    // A client that goes away halfway: what was decoded is removed.
    const cut = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret } });
    cut.on('error', () => undefined);
    cut.write(body.subarray(0, body.length >> 1));
    for (let i = 0; i < 100 && !(decoded()[0]?.length! > 0); i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(uploads()).toHaveLength(1);
    cut.destroy();
    for (let i = 0; i < 100 && uploads().length > 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(uploads()).toEqual([]);
  }, 60_000);

  it('a 100 MB document signs through it and passes pdfsig; a body over --max-body is 413', async () => {
    const big = Buffer.from(generateLargeImage(100));
    const res = await raw(`credential_key=${pades}`, big);
    expect(res.status, await res.clone().text()).toBe(202);
    const id = ((await res.json()) as { request_id: string }).request_id;
    const signed = await signedBytes(id);
    expect(signed.length).toBeGreaterThan(big.length);
    expect(signed.subarray(0, big.length).equals(big)).toBe(true);
    // The JSON result streams the same bytes as base64, piece by piece (results.ts).
    const json = await call(`/v1/results/${id}`);
    expect(json.headers.get('content-length')).toBe(String((await json.clone().arrayBuffer()).byteLength));
    expect(Buffer.from(((await json.json()) as { pdf_base64: string }).pdf_base64, 'base64').equals(signed)).toBe(true);
    const file = join(tmp.home, 'big.pdf');
    writeFileSync(file, signed);
    expect((await runPdfsig(file)).signatures[0]!.validation).toBe('Signature is Valid.');
    const over = await raw(`credential_key=${pades}`, Buffer.concat([big, big]));
    await expectError(over, 413, `request body is larger than the limit of ${160 * 1024 * 1024} bytes (serve --max-body)`, where());
  }, 120_000);
});
