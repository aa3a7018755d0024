/**
 * PAdES B-LT and B-LTA (ETSI EN 319 142-1 §5.4) from the engine and the signing layer's
 * extendToLongTerm, against real services on loopback: an openssl OCSP responder and CRLs
 * (helpers/revocation-pki.ts) named by the certificates, and the openssl ts TSA. Judged by pdfsig,
 * qpdf, openssl ocsp -VAfile and openssl ts -verify.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/net/http-client';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { ecdsaRawToDer } from '../../../src/pades/cms/cms';
import { vriKey } from '../../../src/pades/sign/dss';
import { signatureContentsAt } from '../../../src/pades/cms';
import { extendToLongTerm } from '../../../src/signing/long-term';
import { collectValidationData, tokenCertificates } from '../../../src/signing/online/revocation-client';
import { PDFDict, PDFName, PDFRef } from 'pdf-lib';
import { PdfReader } from '../../../src/pades/pdf/pdf-reader';
import { byteRangeFor, byteRangePlaceholder, contentsPlaceholder, digestByteRange, embedContents, locateSignatureSlots, patchByteRange } from '../../../src/pades/pdf/byterange';
import { writeIncrementalUpdate } from '../../../src/pades/pdf/incremental-writer';
import { addDss } from '../../../src/pades/sign/dss';
import { prepareDocTimestamp } from '../../../src/pades/sign/doc-timestamp';
import { inlineDocumentWork } from '../../helpers/document-work';
import { fetchTimestampToken, fetchTimestampTokenForImprint } from '../../../src/signing/online/tsa-client';
import { runCliAsync } from '../../helpers/cli';
import { startConnectProxy } from '../../helpers/connect-proxy';
import { readDss } from '../../helpers/dss-reader';
import { startLocalTsa, type LocalTsa } from '../../helpers/local-tsa';
import { CORPUS_DIR, CORPUS_SIGNING } from '../../helpers/pdf-corpus';
import { createNssTrustDb, extractCms, qpdfCheck, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { createRevocationPki, startRevocationServer, type RevocationPki, type RevocationServer } from '../../helpers/revocation-pki';
import { signDigest } from '../../helpers/test-pki';
import { validatePdf } from '../../../src/pades/validate/validate';
import { tempDir } from '../../helpers/temp-dir';

const pemDer = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));

let server: RevocationServer;
let pki: RevocationPki;
let tsa: LocalTsa;
let dir: string;
let nssDir: string;
const documentWork = inlineDocumentWork();
const http = new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null });
const input = new Uint8Array(readFileSync(join(CORPUS_DIR, 'pdflib-xref-table.pdf')));

beforeAll(async () => {
  dir = tempDir('localsign-ltv-');
  server = await startRevocationServer();
  const tsaCa = `tsa-${randomBytes(3).toString('hex')}`;
  [pki, tsa] = await Promise.all([
    createRevocationPki(server, { algorithm: 'p256', signerCn: 'LTV Engine Signer' }),
    startLocalTsa({ tsaExtensions: `crlDistributionPoints = URI:${server.crlUrl(tsaCa)}` }),
  ]);
  await server.addCa(tsaCa, tsa.caCertPath, join(tsa.dir, 'tsa-ca.key'));
  nssDir = await createNssTrustDb(mkdtempSync(join(dir, 'nss-')), [pki.chain[2]!, new Uint8Array(Buffer.from(tsa.caCertPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'))]);
});
afterAll(async () => {
  await Promise.all([server.close(), tsa.close(), http.close()]);
});

async function signBT(p: RevocationPki, certify?: 1 | 2 | 3) {
  const prepared = await preparePades({ pdf: input, certificateChain: p.chain, ...CORPUS_SIGNING, reserveTimestamp: true, certify });
  const value = ecdsaRawToDer(signDigest(p.signerKeyPem, 'p256', prepared.digest));
  const token = await fetchTimestampToken(http, tsa.url, value);
  const pdf = finishPades(prepared, value, { timestampToken: token });
  return { pdf, token, contents: signatureContentsAt(pdf, prepared.contentsOffset, prepared.contentsHexLength) };
}

async function extend(level: 'B-LT' | 'B-LTA', p = pki) {
  const bt = await signBT(p);
  const out = await extendToLongTerm({ pdf: bt.pdf, level, chain: p.chain, signatureContents: bt.contents, timestampToken: bt.token, tsaUrl: tsa.url, http, now: new Date(), documentWork });
  // The PDF work runs inline here (tests from source): documents stay bytes, never files.
  return { ...bt, out: out.pdf as Uint8Array };
}

describe('B-LT: the DSS after the signature', () => {
  it('holds the chain, the OCSP and CRL answers the certificates name, and a VRI for the signature', async () => {
    const hits = { ...server.hits };
    const { pdf, out, contents } = await extend('B-LT');
    expect(Buffer.compare(out.subarray(0, pdf.length), pdf)).toBe(0);
    expect(Buffer.compare(pdf.subarray(0, input.length), input)).toBe(0);
    // One OCSP for the signer (its certificate names a responder), CRLs for the intermediate and the TSA.
    expect(server.hits.ocsp - hits.ocsp).toBe(1);
    expect(server.hits.crl - hits.crl).toBe(2);
    const dss = (await readDss(out))!;
    expect(dss.ocsps).toHaveLength(1);
    expect(dss.crls).toHaveLength(2);
    const has = (c: Uint8Array) => dss.certs.some((d) => Buffer.from(d).equals(Buffer.from(c)));
    expect(pki.chain.every(has)).toBe(true);
    expect(dss.certs.length).toBeGreaterThanOrEqual(5); // + the TSA and its root
    expect([...dss.vri.entries()]).toEqual([[createHash('sha1').update(contents).digest('hex').toUpperCase(), { cert: dss.certs.length, ocsp: 1, crl: 2 }]]);
    expect(vriKey(contents)).toMatch(/^[0-9A-F]{40}$/);

    const file = join(dir, 'b-lt.pdf');
    writeFileSync(file, out);
    const report = await runPdfsig(file, { nssDir });
    expect(report.signatures.map((s) => [s.signatureValid, s.certificateStatus]), report.raw).toEqual([[true, 'Certificate is Trusted.']]);
    expect((await qpdfCheck(file)).ok).toBe(true);

    // openssl ocsp reads the embedded response and verifies it with the issuer as the trusted responder.
    const respFile = join(dir, 'ocsp.der');
    writeFileSync(respFile, dss.ocsps[0]!);
    const intermediatePem = join(pki.dir, 'intermediate.pem');
    const verify = await runTool('openssl', ['ocsp', '-respin', respFile, '-VAfile', intermediatePem, '-issuer', intermediatePem, '-cert', pki.signerCertPath, '-no_nonce']);
    expect(verify.stderr + verify.stdout).toContain('Response verify OK');
    expect(verify.stdout).toContain(`${pki.signerCertPath}: good`);

    // Our own validation, from the embedded data only: B-LT, every certificate good.
    const anchors = [pki.chain[2]!, pemDer(tsa.caCertPem)];
    const [sig] = validatePdf(out, { trustAnchors: anchors, now: new Date() }).signatures;
    expect(sig).toMatchObject({ valid: true, level: 'B-LT', digestValid: true, chain: { trusted: true }, timestamp: { valid: true, authority: 'CN=localsign Test TSA,O=localsign test,C=ES', chain: { trusted: true } }, modifications: { level: 'dss_and_timestamps' } });
    expect(sig!.revocation.map((r) => [r.certificate, r.status, r.source])).toEqual([
      ['CN=LTV Engine Signer,O=localsign test,C=ES', 'good', 'ocsp'],
      [expect.stringMatching(/^CN=LTV Intermediate /), 'good', 'crl'],
    ]);
    // Without the DSS the same signature is B-T, with no revocation data: its chain is not trusted
    // when revocation is required (the default), and is when it is only used if available.
    const [bt] = validatePdf(pdf, { trustAnchors: anchors, now: new Date() }).signatures;
    expect(bt).toMatchObject({ valid: false, level: 'B-T', chain: { trusted: false } });
    expect(bt!.revocation.map((r) => r.status)).toEqual(['no_data', 'no_data']);
    expect(bt!.chain.failures).toEqual([
      'the revocation status of CN=LTV Engine Signer,O=localsign test,C=ES cannot be determined (revocation: require): no CRL or OCSP response about it was found',
      expect.stringMatching(/^the revocation status of CN=LTV Intermediate .* cannot be determined \(revocation: require\): no CRL or OCSP response about it was found$/),
    ]);
    const [lenient] = validatePdf(pdf, { trustAnchors: anchors, now: new Date(), revocation: 'if-available' }).signatures;
    expect(lenient).toMatchObject({ valid: true, level: 'B-T', chain: { trusted: true } });
  });

  it('a revoked signer certificate ends in an error naming the certificate and the responder', async () => {
    const revoked = await createRevocationPki(server, { algorithm: 'p256', signerCn: 'Revoked Signer' });
    await server.revoke(revoked.intermediateName, revoked.signerCertPath);
    await expect(extend('B-LT', revoked)).rejects.toThrow(
      new RegExp(`^certificate CN=Revoked Signer,O=localsign test,C=ES is revoked since .* \\(OCSP ${server.ocspUrl(revoked.intermediateName)}\\)$`),
    );
  });

  it('unreachable revocation data ends in an error naming the certificate and every URL tried', async () => {
    const other = await createRevocationPki(server, { algorithm: 'p256', signerCn: 'Unreachable Signer' });
    server.down.add(server.ocspUrl(other.intermediateName)).add(server.crlUrl(other.intermediateName));
    await expect(extend('B-LT', other)).rejects.toThrow(
      `revocation data for certificate CN=Unreachable Signer,O=localsign test,C=ES cannot be had: OCSP ${server.ocspUrl(other.intermediateName)}: HTTP 503; CRL ${server.crlUrl(other.intermediateName)}: HTTP 503`,
    );
  });
});

describe('localsign verify: embedded revocation data only, unless --online', () => {
  it('a B-T signature has no revocation data; --online fetches OCSP and the CRL for it', async () => {
    const bt = await signBT(pki);
    const file = join(dir, 'b-t.pdf');
    writeFileSync(file, bt.pdf);
    const trust = join(dir, 'trust.pem');
    writeFileSync(trust, pki.caCertPem + tsa.caCertPem);
    const revocationOf = (r: { stdout: string }) => (JSON.parse(r.stdout) as { signatures: { revocation: { status: string; source: string | null }[] }[] }).signatures[0]!.revocation.map((x) => [x.status, x.source]);
    const hits = { ...server.hits };
    const offline = await runCliAsync(['verify', file, '--json', '--trust', trust], { home: dir });
    expect(revocationOf(offline)).toEqual([['no_data', null], ['no_data', null]]);
    expect(server.hits).toEqual(hits);
    const online = await runCliAsync(['verify', file, '--json', '--trust', trust, '--online'], { home: dir });
    expect(revocationOf(online)).toEqual([['good', 'ocsp'], ['good', 'crl']]);
    expect(server.hits).toEqual({ ocsp: hits.ocsp + 1, crl: hits.crl + 1 });
    expect(online.status).toBe(0);
  });
});

describe('online checks of a stranger\'s document are bounded (issue 15)', () => {
  it('with a budget, certificates are asked about one at a time and fetching stops at the cap, each refusal named', async () => {
    let inFlight = 0;
    let most = 0;
    const counting = {
      request: async (r: Parameters<HttpClient['request']>[0]) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          return await http.request(r);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const hits = { ...server.hits };
    // The signer and the intermediate need an answer each; one fetch is allowed.
    const budget = { left: 1 };
    await expect(collectValidationData(pki.chain, [], { http: counting, now: new Date(), budget })).rejects.toThrow(/not fetched: this document already used its online fetches/);
    expect(server.hits.ocsp + server.hits.crl - hits.ocsp - hits.crl).toBe(1);
    expect(budget.left).toBe(0);
    // Without the cap, both are had, still one at a time.
    await collectValidationData(pki.chain, [], { http: counting, now: new Date(), budget: { left: 32 } });
    expect(most).toBe(1);
  });
});

describe('revocation fetching goes through the operator proxy', () => {
  it('OCSP and CRL requests are forwarded by the HTTP proxy the client is given', async () => {
    const proxy = await startConnectProxy();
    const proxied = new HttpClient({ httpProxy: proxy.url, httpsProxy: null, noProxy: null });
    try {
      const bt = await signBT(pki);
      await proxy.clearRequests();
      await extendToLongTerm({ pdf: bt.pdf, level: 'B-LT', chain: pki.chain, signatureContents: bt.contents, timestampToken: bt.token, tsaUrl: tsa.url, http: proxied, now: new Date(), documentWork });
      // undici tunnels http targets too (CONNECT), a tunnel per connection to the revocation server.
      const seen = (await proxy.requests()).map((r) => [r.type, r.target, r.status]);
      const host = new URL(server.url).host;
      expect(seen.length).toBeGreaterThanOrEqual(1);
      expect(seen).toEqual(seen.map(() => ['CONNECT', host, 200]));
    } finally {
      await proxied.close();
      await proxy.stop();
    }
  });
});

/**
 * The B-T signature `bt` (its /Contents `contents`, its token `token`) made B-LTA in ONE update: the
 * /DSS and the document timestamp written together, as some tools do: what addDss and
 * prepareDocTimestamp write as two updates, read back and written again as one over `bt`.
 */
async function ltaInOneUpdate(bt: Uint8Array, contents: Uint8Array, token: Uint8Array): Promise<Uint8Array> {
  const validation = await collectValidationData(pki.chain, tokenCertificates(token), { http, now: new Date() });
  const twoUpdates = prepareDocTimestamp(addDss(bt, validation, [{ signatureContents: contents, ...validation }])).pdf;
  const reader = new PdfReader(twoUpdates);
  const nums = new Set(reader.xref.sections.slice(0, 2).flatMap((sec) => [...sec.entries].filter(([, e]) => e.type === 'offset').map(([n]) => n)));
  const objects = [...nums].map((n) => ({ ref: PDFRef.of(n, reader.generationOf(n)), object: reader.getObject(PDFRef.of(n, reader.generationOf(n)))! }));
  const sig = objects.find((o) => o.object instanceof PDFDict && o.object.get(PDFName.of('Type')) === PDFName.of('DocTimeStamp'))!;
  const sigNum = sig.ref.objectNumber;
  // Read back, the placeholders lose the form the slot finder looks for: set as prepareDocTimestamp sets them.
  (sig.object as PDFDict).set(PDFName.of('ByteRange'), byteRangePlaceholder());
  (sig.object as PDFDict).set(PDFName.of('Contents'), contentsPlaceholder(24 * 1024));
  const update = writeIncrementalUpdate(bt, new PdfReader(bt).xref, objects);
  const out = update.bytes;
  const at = update.offsets.get(sigNum)!;
  const slots = locateSignatureSlots(out, at, out.length);
  const range = byteRangeFor(slots, out.length);
  patchByteRange(out, slots.byteRangeOffset, range);
  embedContents(out, slots.contentsOffset, slots.contentsHexLength, await fetchTimestampTokenForImprint(http, tsa.url, digestByteRange(out, range)));
  return out;
}

describe('B-LTA: a document timestamp over the document and its DSS', () => {
  it('the /DSS and the document timestamp in the same update: B-LTA, as the timestamp covers the /DSS (ETSI EN 319 142-1 §5.5)', async () => {
    const bt = await signBT(pki);
    const out = await ltaInOneUpdate(bt.pdf, bt.contents, bt.token);
    const reader = new PdfReader(out);
    expect(reader.xref.sections.length - new PdfReader(bt.pdf).xref.sections.length).toBe(1);
    const ours = validatePdf(out, { trustAnchors: [pki.chain[2]!, pemDer(tsa.caCertPem)], now: new Date() });
    expect(ours.signatures.map((s) => [s.kind, s.level, s.valid, s.modifications.level])).toEqual([['signature', 'B-LTA', true, 'dss_and_timestamps'], ['document_timestamp', null, true, 'none']]);
  });

  it('passes pdfsig, qpdf and openssl ts -verify, and keeps the B-LT document as a prefix', async () => {
    const { pdf, out } = await extend('B-LTA');
    expect(Buffer.compare(out.subarray(0, pdf.length), pdf)).toBe(0);
    const file = join(dir, 'b-lta.pdf');
    writeFileSync(file, out);
    const report = await runPdfsig(file, { nssDir });
    // poppler 22.12 (Debian 12) lists the document timestamp but cannot check /ETSI.RFC3161 ("Signature
    // Type: unknown"); openssl ts -verify below checks the token over the same ByteRange instead.
    expect(report.signatures.map((s) => [s.signerCommonName, s.coversWholeDocument]), report.raw).toEqual([
      ['LTV Engine Signer', false],
      ['localsign Test TSA', true],
    ]);
    expect(report.signatures[0]!.signatureValid).toBe(true);
    expect((await qpdfCheck(file)).ok).toBe(true);
    expect(Buffer.from(out).toString('latin1')).toMatch(/\/Type \/DocTimeStamp[\s\S]*\/SubFilter \/ETSI\.RFC3161/);

    const { cms: token, signedBytes } = extractCms(out, 1);
    writeFileSync(join(dir, 'dts.der'), token);
    writeFileSync(join(dir, 'dts-data.bin'), signedBytes);
    const verify = await runTool('openssl', ['ts', '-verify', '-data', join(dir, 'dts-data.bin'), '-in', join(dir, 'dts.der'), '-token_in', '-CAfile', tsa.caCertPath]);
    expect(verify.stdout + verify.stderr).toContain('Verification: OK');

    const ours = validatePdf(out, { trustAnchors: [pki.chain[2]!, pemDer(tsa.caCertPem)], now: new Date() });
    expect(ours.valid).toBe(true);
    expect(ours.signatures.map((s) => [s.kind, s.level, s.valid])).toEqual([['signature', 'B-LTA', true], ['document_timestamp', null, true]]);
    expect(ours.signatures[1]!.timestamp!.time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // A byte changed in the DSS (after the signature, under the document timestamp) breaks only the latter.
    const broken = out.slice();
    const dssStream = Buffer.from(out).indexOf('stream\n', pdf.length) + 20;
    broken[dssStream] = broken[dssStream]! ^ 0x01;
    expect(validatePdf(broken, { trustAnchors: [], now: new Date() }).signatures.map((s) => s.digestValid)).toEqual([true, false]);
  });
});
