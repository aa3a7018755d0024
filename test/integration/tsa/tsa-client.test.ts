import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../../src/domain/errors';
import { assembleCms, buildSignedAttributes, ecdsaRawToDer, estimateCmsSize } from '../../../src/pades/cms/cms';
import { verifyCmsSignature } from '../../../src/pades/cms/cms-check';
import { HttpClient, type HttpRequest } from '../../../src/net/http-client';
import { fetchTimestampToken } from '../../../src/signing/online/tsa-client';
import { tempDir } from '../../helpers/temp-dir';

const http = new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null });
import { startLocalTsa, type LocalTsa } from '../../helpers/local-tsa';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';

const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const DOCUMENT = new TextEncoder().encode('bytes covered by the /ByteRange of a PDF\n');

function openssl(args: string[], cwd: string): string {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa` };
}

let tsa: LocalTsa;
let pki: TestPki;
beforeAll(async () => {
  [tsa, pki] = await Promise.all([startLocalTsa(), createTestPki({ algorithm: 'p256' })]);
});
afterAll(async () => tsa?.close());

describe('fetchTimestampToken with a real TSA (B-T)', () => {
  it('timestamps the signature value; the CMS and the token both verify with openssl', async () => {
    const dir = tempDir('localsign-bt-');
    const digest = sha256(DOCUMENT);
    const signedAttributes = buildSignedAttributes({ documentDigest: digest, signerCertificate: pki.chain[0]! });
    const signatureValue = ecdsaRawToDer(signDigest(pki.signerKeyPem, 'p256', sha256(signedAttributes)));
    const token = await fetchTimestampToken(http, tsa.url, signatureValue);
    expect(tsa.requests).toBe(1);
    const cms = assembleCms({ signedAttributes, signatureValue, certificateChain: pki.chain, algorithm: 'p256', timestampToken: token });
    expect(cms.length).toBeLessThanOrEqual(estimateCmsSize(pki.chain, 'p256', true));
    expect(estimateCmsSize(pki.chain, 'p256', true) - estimateCmsSize(pki.chain, 'p256', false)).toBeGreaterThanOrEqual(8192);

    const got = verifyCmsSignature(cms, digest);
    expect(hex(got.timestampToken!)).toBe(hex(token));

    writeFileSync(join(dir, 'doc.bin'), DOCUMENT);
    writeFileSync(join(dir, 'cms.der'), cms);
    writeFileSync(join(dir, 'sig.bin'), signatureValue);
    writeFileSync(join(dir, 'token.der'), token);
    expect(openssl(['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'cms.der', '-content', 'doc.bin',
      '-CAfile', pki.caCertPath, '-purpose', 'any', '-out', '/dev/null'], dir)).toContain('CMS Verification successful');
    expect(openssl(['cms', '-cmsout', '-print', '-inform', 'DER', '-in', 'cms.der'], dir))
      .toContain('object: id-smime-aa-timeStampToken (1.2.840.113549.1.9.16.2.14)');
    expect(openssl(['ts', '-verify', '-data', 'sig.bin', '-in', 'token.der', '-token_in', '-CAfile', tsa.caCertPath], dir))
      .toContain('Verification: OK');
    // The token covers the signature value, not the document.
    expect(openssl(['ts', '-verify', '-data', 'doc.bin', '-in', 'token.der', '-token_in', '-CAfile', tsa.caCertPath], dir))
      .toContain('Verification: FAILED');
  });
});

describe('fetchTimestampToken failures', () => {
  const sig = new Uint8Array(64).fill(7);

  it('reports HTTP errors and a wrong content type', async () => {
    const { server, url } = await listen((req, res) => {
      if (req.url === '/tsa') res.writeHead(503).end('busy');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    });
    const host = new URL(url).host;
    try {
      await expect(fetchTimestampToken(http, url, sig)).rejects.toThrow(`timestamp authority ${host} answered HTTP 503`);
      await expect(fetchTimestampToken(http, `${url}/html`, sig)).rejects.toThrow(
        `timestamp authority ${host} answered text/html, expected application/timestamp-reply`);
    } finally {
      server.close();
    }
  });

  it('gives up after timeoutMs and reports an unreachable TSA', async () => {
    const { server, url } = await listen(() => undefined); // never answers
    try {
      const err = await fetchTimestampToken(http, url, sig, { timeoutMs: 200 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlatformError);
      expect((err as Error).message).toBe(`timestamp authority ${new URL(url).host} did not answer within 200 ms`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
    const closed = url; // the server is closed now: nothing listens on that port
    // The cause is in the short message (issue 11: "unreachable: fetch failed" told nothing).
    await expect(fetchTimestampToken(http, closed, sig)).rejects.toThrow(/^timestamp authority 127\.0\.0\.1:\d+ is unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  it('checks the nonce of the reply', async () => {
    // The recording client replays its first reply to every later request: the nonce check must refuse it.
    let replay: Awaited<ReturnType<HttpClient['request']>> | undefined;
    const recording = { request: async (o: HttpRequest) => (replay ??= await http.request(o)) };
    await fetchTimestampToken(recording, tsa.url, sig);
    await expect(fetchTimestampToken(recording, tsa.url, sig)).rejects.toThrow(/^timestamp token nonce \d+ does not match the request nonce \d+$/);
  });
});
