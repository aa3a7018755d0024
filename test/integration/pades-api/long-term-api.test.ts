/**
 * Issue 12 through the API: `level` and `certify` on POST /v1/pades/sign (JSON and raw
 * transports), the 422s before the 202, B-LT and B-LTA with the demo credentials (the demo CA's
 * CRL answered in-process, the TSA's CRL over loopback), GET /pki/demo-ca.crl, and a request whose
 * revocation data cannot be had ending ERROR with the certificate and the URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, smallPdf, type Call } from '../../helpers/api-fixtures';
import { readDss } from '../../helpers/dss-reader';
import { startLocalTsa, type LocalTsa } from '../../helpers/local-tsa';
import { createNssTrustDb, qpdfCheck, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { startRevocationServer, type RevocationServer } from '../../helpers/revocation-pki';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

const home = makeTmpHome();
let server: RevocationServer;
let tsa: LocalTsa;
let tsaCaName: string;
let service: ServiceProcess;
let plain: ServiceProcess;
let call: Call;
let plainCall: Call;
let credential: { credential_key: string; certificate_chain: string[] };
let pdf: Buffer;
let wrapper: { key: string; secret: string };

beforeAll(async () => {
  wrapper = initEmbeddedWithWrapper(home.home);
  server = await startRevocationServer();
  tsaCaName = `tsa-${randomBytes(3).toString('hex')}`;
  tsa = await startLocalTsa({ tsaExtensions: `crlDistributionPoints = URI:${server.crlUrl(tsaCaName)}` });
  await server.addCa(tsaCaName, tsa.caCertPath, join(tsa.dir, 'tsa-ca.key'));
  [service, pdf] = await Promise.all([startServiceProcess({ home: home.home, args: ['--tsa-url', tsa.url] }), smallPdf('long term')]);
  call = authed(service.url, wrapper);
  const creds = (await (await call('/v1/credentials')).json()) as { credentials: { type: string; name: string; credential_key: string; certificate_chain: string[] }[] };
  credential = creds.credentials.find((c) => c.name === 'Demo PAdES signer (P-256)')!;
});
afterAll(async () => {
  await Promise.all([service?.stop(), plain?.stop(), tsa?.close(), server?.close()]);
  home.cleanup();
});

async function sign(body: Record<string, unknown>, c: Call = call): Promise<Record<string, unknown>> {
  const res = await c('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ credential_key: credential.credential_key, ...body }) });
  expect(res.status, await res.clone().text()).toBe(202);
  return waitForResult(c, ((await res.json()) as { request_id: string }).request_id);
}

const bytesOf = (result: Record<string, unknown>) => new Uint8Array(Buffer.from(String(result.pdf_base64), 'base64'));
const demoRoot = () => new Uint8Array(Buffer.from(credential.certificate_chain.at(-1)!, 'base64'));

describe('level B-LT and B-LTA with the demo credentials', () => {
  it('B-LT: the DSS holds the demo chain, the demo CA CRL (no network) and the TSA CRL; pdfsig and qpdf pass', async () => {
    const hits = server.hits.crl;
    const result = await sign({ pdf_base64: pdf.toString('base64'), level: 'B-LT' });
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    const out = bytesOf(result);
    expect(Buffer.compare(out.subarray(0, pdf.length), pdf)).toBe(0);
    const dss = (await readDss(out))!;
    expect(dss.crls).toHaveLength(2);
    expect(dss.ocsps).toHaveLength(0);
    // Only the TSA's CRL came over the network: the demo CA's is the service's own.
    expect(server.hits.crl - hits).toBe(1);
    const served = await fetch(`${service.url}/pki/demo-ca.crl`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/pkix-crl');
    const crl = new Uint8Array(await served.arrayBuffer());
    expect(dss.crls.some((c) => Buffer.from(c).equals(Buffer.from(crl)))).toBe(true);

    const dir = mkdtempSync(join(home.home, 'check-'));
    writeFileSync(join(dir, 'crl.der'), crl);
    writeFileSync(join(dir, 'root.der'), demoRoot());
    await runTool('openssl', ['x509', '-inform', 'DER', '-in', join(dir, 'root.der'), '-out', join(dir, 'root.pem')]);
    const crlCheck = await runTool('openssl', ['crl', '-inform', 'DER', '-in', join(dir, 'crl.der'), '-CAfile', join(dir, 'root.pem'), '-noout']);
    expect(crlCheck.stderr + crlCheck.stdout).toContain('verify OK');

    const file = join(dir, 'b-lt.pdf');
    writeFileSync(file, out);
    const nssDir = await createNssTrustDb(mkdtempSync(join(dir, 'nss-')), [demoRoot()]);
    const report = await runPdfsig(file, { nssDir });
    expect(report.signatures.map((s) => [s.signatureValid, s.certificateStatus]), report.raw).toEqual([[true, 'Certificate is Trusted.']]);
    expect((await qpdfCheck(file)).ok).toBe(true);
  });

  it('B-LTA by the raw transport: DSS then a document timestamp', async () => {
    const res = await call(`/v1/pades/sign?credential_key=${credential.credential_key}&level=B-LTA&certify=3`, { method: 'POST', body: pdf, headers: { 'content-type': 'application/pdf' } });
    expect(res.status, await res.clone().text()).toBe(202);
    const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    const out = bytesOf(result);
    const file = join(home.home, 'b-lta.pdf');
    writeFileSync(file, out);
    const report = await runPdfsig(file);
    expect(report.signatures.map((s) => [s.signerCommonName, s.coversWholeDocument]), report.raw).toEqual([
      ['Demo Signer (P-256)', false],
      ['localsign Test TSA', true],
    ]);
    expect(report.signatures[0]!.signatureValid).toBe(true);
    expect(Buffer.from(out).toString('latin1')).toMatch(/\/TransformMethod \/DocMDP[\s\S]*\/P 3/);
    expect((await qpdfCheck(file)).ok).toBe(true);
  });

  it('revocation data that cannot be had ends the request in ERROR naming the certificate and the URL', async () => {
    server.down.add(server.crlUrl(tsaCaName));
    try {
      const result = await sign({ pdf_base64: pdf.toString('base64'), level: 'B-LT' });
      expect(result.status).toBe('ERROR');
      expect(result.error).toBe(`revocation data for certificate CN=localsign Test TSA,O=localsign test,C=ES cannot be had: CRL ${server.crlUrl(tsaCaName)}: HTTP 503`);
    } finally {
      server.down.delete(server.crlUrl(tsaCaName));
    }
  });
});

describe('POST /v1/pades/verify', () => {
  it('reports each signature in file order with the level reached; needs an application key; refuses a non-PDF', async () => {
    const lta = await call(`/v1/pades/sign?credential_key=${credential.credential_key}&level=B-LTA`, { method: 'POST', body: pdf, headers: { 'content-type': 'application/pdf' } });
    const result = await waitForResult(call, ((await lta.json()) as { request_id: string }).request_id);
    expect(result.status).toBe('DONE');
    const res = await call('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: result.pdf_base64 }) });
    expect(res.status).toBe(200);
    const report = (await res.json()) as { valid: boolean; signatures: Record<string, unknown>[] };
    // No --trust on this service: nothing is trusted, and the report says so.
    expect(report.valid).toBe(false);
    expect(report.signatures.map((s) => [s.kind, s.level, s.digest_valid, s.covers_whole_document])).toEqual([
      ['signature', 'B-LTA', true, false],
      ['document_timestamp', null, true, true],
    ]);
    const [sig] = report.signatures as [Record<string, any>];
    expect(sig.signer.subject).toBe('CN=Demo Signer (P-256),O=localsign demo (not trusted)');
    expect(sig.chain.failures[0]).toBe('no trust anchors are configured (--trust FILE)');
    expect(sig.changes_after).toEqual({ level: 'dss_and_timestamps', changes: [], changes_total: 0, allowed: true, docmdp_permission: null });
    expect(sig.revocation).toEqual([{ certificate: 'CN=Demo Signer (P-256),O=localsign demo (not trusted)', status: 'good', source: 'crl', found_in: 'dss', revoked_at: null, reason: null, checked_at: expect.any(String), problems: [] }]);
    expect(sig.timestamp).toMatchObject({ valid: true, authority: 'CN=localsign Test TSA,O=localsign test,C=ES' });
    expect(Object.keys(sig).sort()).toEqual(['algorithms', 'byte_range', 'certifies', 'chain', 'changes_after', 'claimed_signing_time', 'covers_whole_document', 'digest_valid', 'field', 'fields', 'kind', 'level', 'problems', 'revocation', 'signer', 'sub_filter', 'timestamp', 'valid']);

    expect((await fetch(`${service.url}/v1/pades/verify`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(401);
    const notPdf = await call('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from('hello').toString('base64') }) });
    expect(notPdf.status).toBe(422);
    await expectError(await call('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: pdf.toString('base64'), keep: true }) }), 422, 'unknown field: keep; allowed: pdf_base64, revocation', { home: home.home, reader: call });
  });
});

describe('certify and level: what is refused before the 202', () => {
  it('certify 2 allows a later signature; certify 1 refuses it; certify on a signed document is a 422', async () => {
    const p2 = await sign({ pdf_base64: pdf.toString('base64'), certify: 2, level: 'B-B' });
    expect(p2.status).toBe('DONE');
    const again = await sign({ pdf_base64: p2.pdf_base64, level: 'B-B' });
    expect(again.status).toBe('DONE');
    const p1 = await sign({ pdf_base64: pdf.toString('base64'), certify: 1, level: 'B-B' });
    expect(p1.status).toBe('DONE');
    const refused = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ credential_key: credential.credential_key, pdf_base64: p1.pdf_base64 }) });
    await expectError(refused, 422, 'the PDF is certified with DocMDP permission P=1: no change, not even a signature, is allowed', { home: home.home, reader: call });
    const certifySigned = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ credential_key: credential.credential_key, pdf_base64: p2.pdf_base64, certify: 3 }) });
    await expectError(certifySigned, 422, 'certify: the document is already signed (1 signature); only its first signature can certify it (ISO 32000-1 §12.8.2.2)', { home: home.home, reader: call });
  });

  it('names the field when level or certify is malformed', async () => {
    const post = (extra: Record<string, unknown>) => call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ credential_key: credential.credential_key, pdf_base64: pdf.toString('base64'), ...extra }) });
    await expectError(await post({ level: 'B-X' }), 422, 'level must be one of "B-B", "B-T", "B-LT", "B-LTA", got "B-X"', { home: home.home, reader: call });
    await expectError(await post({ level: 3 }), 422, 'level must be one of "B-B", "B-T", "B-LT", "B-LTA", got number', { home: home.home, reader: call });
    await expectError(await post({ certify: 4 }), 422, 'certify must be 1 (no changes), 2 (form filling and signing) or 3 (also annotations), got 4', { home: home.home, reader: call });
    await expectError(await post({ certify: '2' }), 422, 'certify must be 1 (no changes), 2 (form filling and signing) or 3 (also annotations), got "2"', { home: home.home, reader: call });
  });

  it('B-T and above without a timestamp authority is a 422 saying so; B-B is the default there', async () => {
    await service.stop();
    plain = await startServiceProcess({ home: home.home });
    plainCall = authed(plain.url, wrapper);
    for (const level of ['B-T', 'B-LT', 'B-LTA']) {
      const res = await plainCall('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ credential_key: credential.credential_key, pdf_base64: pdf.toString('base64'), level }) });
      await expectError(res, 422, `level ${level} needs a timestamp authority and this service has none (serve --tsa-url); ask for level B-B or configure one`, { home: home.home, reader: plainCall });
    }
    const result = await sign({ pdf_base64: pdf.toString('base64') }, plainCall);
    expect(result.status).toBe('DONE');
  });

  it('serve --trust: the verify route judges chains against those anchors', async () => {
    await plain.stop();
    const trust = join(home.home, 'trust.pem');
    writeFileSync(trust, `-----BEGIN CERTIFICATE-----\n${credential.certificate_chain.at(-1)}\n-----END CERTIFICATE-----\n`);
    plain = await startServiceProcess({ home: home.home, args: ['--trust', trust] });
    plainCall = authed(plain.url, wrapper);
    const signed = await sign({ pdf_base64: pdf.toString('base64') }, plainCall);
    type Report = { valid: boolean; signatures: { valid: boolean; level: string; chain: { trusted: boolean; failures: string[] } }[] };
    const verify = async (extra: Record<string, unknown>) => (await plainCall('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: signed.pdf_base64, ...extra }) })).json() as Promise<Report>;
    // A B-B signature carries no revocation data: by default (revocation required) its chain is not trusted.
    const strict = await verify({});
    expect(strict).toMatchObject({ valid: false, signatures: [{ valid: false, level: 'B-B', chain: { trusted: false } }] });
    expect(strict.signatures[0]!.chain.failures).toEqual([
      'the revocation status of CN=Demo Signer (P-256),O=localsign demo (not trusted) cannot be determined (revocation: require): no CRL or OCSP response about it was found',
    ]);
    expect(await verify({ revocation: null })).toEqual(strict);
    expect(await verify({ revocation: 'if-available' })).toMatchObject({ valid: true, signatures: [{ valid: true, level: 'B-B', chain: { trusted: true } }] });
    const bad = await plainCall('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: signed.pdf_base64, revocation: 'off' }) });
    await expectError(bad, 422, 'revocation must be one of "require", "if-available", got "off"', { home: home.home, reader: plainCall });
  });
});
