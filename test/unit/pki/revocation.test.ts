/**
 * OCSP and CRL reading and checking (pki/ocsp.ts, pki/crl.ts) and path building (pki/chain.ts)
 * against answers the real openssl CLI gives (helpers/revocation-pki.ts), and the X.509 extension
 * readers on certificates openssl made.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crlUrls, isCaCertificate, ocspUrls } from '../../../src/der/x509-extensions';
import { buildPath } from '../../../src/pki/chain';
import { checkCrl, parseCrl } from '../../../src/pki/crl';
import { buildOcspRequest, checkOcspResponse, parseOcspResponse } from '../../../src/pki/ocsp';
import { createRevocationPki, startRevocationServer, type RevocationPki, type RevocationServer } from '../../helpers/revocation-pki';

let server: RevocationServer;
let pki: RevocationPki;

beforeAll(async () => {
  server = await startRevocationServer();
  pki = await createRevocationPki(server, { algorithm: 'p256' });
});
afterAll(() => server.close());

async function post(url: string, body: Uint8Array): Promise<Uint8Array> {
  const r = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/ocsp-request' } });
  expect(r.status).toBe(200);
  return new Uint8Array(await r.arrayBuffer());
}

describe('X.509 extension readers', () => {
  it('reads the OCSP and CRL URLs openssl wrote, and basicConstraints', () => {
    const [signer, intermediate, root] = pki.chain as [Uint8Array, Uint8Array, Uint8Array];
    expect(ocspUrls(signer)).toEqual([server.ocspUrl(pki.intermediateName)]);
    expect(crlUrls(signer)).toEqual([server.crlUrl(pki.intermediateName)]);
    expect(ocspUrls(intermediate)).toEqual([]);
    expect(crlUrls(intermediate)).toEqual([server.crlUrl(pki.rootName)]);
    expect([isCaCertificate(signer), isCaCertificate(intermediate), isCaCertificate(root)]).toEqual([false, true, true]);
  });
});

describe('OCSP (RFC 6960)', () => {
  it('builds a request openssl reads, and checks its answer: good, signed by the issuer, nonce echoed', async () => {
    const [signer, intermediate] = pki.chain as [Uint8Array, Uint8Array];
    const nonce = new Uint8Array(randomBytes(16));
    const request = buildOcspRequest(signer, intermediate, nonce);
    const file = join(pki.dir, 'req.der');
    writeFileSync(file, request);
    const text = execFileSync('openssl', ['ocsp', '-reqin', file, '-req_text'], { encoding: 'utf8' });
    expect(text).toContain('Hash Algorithm: sha1');
    expect(text).toContain(Buffer.from(nonce).toString('hex').toUpperCase().slice(0, 8));
    const response = parseOcspResponse(await post(server.ocspUrl(pki.intermediateName), request));
    const verdict = checkOcspResponse(response, signer, intermediate, nonce);
    expect(verdict.status).toBe('good');
    expect(verdict.nextUpdate!.getTime()).toBeGreaterThan(verdict.thisUpdate.getTime());
    expect(Buffer.from(verdict.responder).equals(Buffer.from(intermediate))).toBe(true);
  });

  it('refuses an answer about another certificate, with another nonce, or signed by someone else', async () => {
    const [signer, intermediate, root] = pki.chain as [Uint8Array, Uint8Array, Uint8Array];
    const nonce = new Uint8Array(randomBytes(16));
    const response = parseOcspResponse(await post(server.ocspUrl(pki.intermediateName), buildOcspRequest(signer, intermediate, nonce)));
    expect(() => checkOcspResponse(response, intermediate, root)).toThrow('no matching CertID');
    expect(() => checkOcspResponse(response, signer, intermediate, new Uint8Array(16))).toThrow('nonce differs');
    const forged = { ...response, certificates: [], signed: [response.signed[0]!, response.signed[1]!, parseOcspResponse(response.raw).signed[2]!] };
    expect(() => checkOcspResponse(forged, signer, root)).toThrow();
  });

  it('a responder that is not successful is named', () => {
    // OCSPResponse { responseStatus unauthorized (6) }
    expect(() => parseOcspResponse(Uint8Array.of(0x30, 0x03, 0x0a, 0x01, 0x06))).toThrow('the responder answered unauthorized');
  });
});

describe('CRL (RFC 5280 §5) and revocation', () => {
  it('reads the CRL, checks its signature and sees a revocation after it', async () => {
    const other = await createRevocationPki(server, { algorithm: 'rsa', signerCrlOnly: true });
    const [signer, intermediate, root] = other.chain as [Uint8Array, Uint8Array, Uint8Array];
    const fetchCrl = async () => parseCrl(new Uint8Array(await (await fetch(server.crlUrl(other.intermediateName))).arrayBuffer()));
    const before = await fetchCrl();
    expect(checkCrl(before, signer, intermediate).status).toBe('good');
    expect(() => checkCrl(before, signer, root)).toThrow('does not verify');
    await server.revoke(other.intermediateName, other.signerCertPath);
    const verdict = checkCrl(await fetchCrl(), signer, intermediate);
    expect(verdict.status).toBe('revoked');
    expect(verdict.revokedAt).toBeInstanceOf(Date);
    const nonce = new Uint8Array(8);
    const ocsp = parseOcspResponse(await post(server.ocspUrl(other.intermediateName), buildOcspRequest(signer, intermediate, nonce)));
    expect(checkOcspResponse(ocsp, signer, intermediate, nonce).status).toBe('revoked');
  });
});

describe('path building', () => {
  it('reaches the anchor, and names each failure otherwise', () => {
    const [signer, intermediate, root] = pki.chain as [Uint8Array, Uint8Array, Uint8Array];
    const now = new Date();
    expect(buildPath(signer, [intermediate], [root], now)).toMatchObject({ trusted: true, failures: [], path: [signer, intermediate, root] });
    expect(buildPath(signer, [intermediate, root], [], now).failures).toEqual([
      'no trust anchors are configured (--trust FILE)',
      expect.stringMatching(/^root .*LTV Root .* is not a trust anchor$/),
    ]);
    expect(buildPath(signer, [], [root], now).failures).toEqual([expect.stringMatching(/^no issuer certificate for .*CN=LTV Signer/)]);
    const later = new Date(now.getTime() + 900 * 86_400_000);
    expect(buildPath(signer, [intermediate], [root], later).failures).toEqual([
      expect.stringMatching(/LTV Signer.* expired on /),
      expect.stringMatching(/LTV Intermediate.* expired on /),
    ]);
  });
});
