/**
 * A revoked signer is never trusted (issue 28, "Done when"), whichever carrier holds the proof and
 * whatever the revocation policy: a real signature (openssl's PKI, the signer revoked on its CA's
 * CRL and by its OCSP responder, helpers/revocation-pki.ts) with the answers in the document's
 * /DSS added after signing, in the CMS `crls` field (a CRL, and an OCSP response as
 * id-ri-ocsp-response, RFC 5940), in the adbe-revocationInfoArchival signed attribute, or nowhere
 * and fetched by `verify --online`; judged through `localsign verify` (the bundle) and through
 * POST /v1/pades/verify of a running service. And the same signer before its revocation: trusted,
 * every status good from the carrier it came in.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { children, ctx, oid, readDerExact, seq, setOf } from '../../../src/der/der';
import { OID } from '../../../src/der/oids';
import { HttpClient } from '../../../src/net/http-client';
import { assembleCms, ecdsaRawToDer } from '../../../src/pades/cms/cms';
import { embedContents } from '../../../src/pades/pdf';
import { addDss } from '../../../src/pades/sign/dss';
import { preparePades } from '../../../src/pades/sign/prepare';
import { collectValidationData } from '../../../src/signing/online/revocation-client';
import { smallPdf } from '../../helpers/api-fixtures';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { withRevocationInfo } from '../../helpers/pkits-pdf';
import { createRevocationPki, startRevocationServer, type RevocationPki, type RevocationServer } from '../../helpers/revocation-pki';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { tempDir } from '../../helpers/temp-dir';
import { signDigest } from '../../helpers/test-pki';
import { makeTmpHome } from '../../helpers/tmp-home';

type Carrier = 'dss' | 'cms-crl' | 'cms-ocsp' | 'archival' | 'online';
const CARRIERS: Carrier[] = ['dss', 'cms-crl', 'cms-ocsp', 'archival', 'online'];

interface Signature {
  valid: boolean;
  digest_valid: boolean;
  problems: string[];
  chain: { trusted: boolean; failures: string[] };
  revocation: { certificate: string; status: string; source: string | null; found_in: string | null; reason: string | null }[];
}

const home = makeTmpHome('localsign-revoked-');
const http = new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null });
let server: RevocationServer;
let revoked: RevocationPki;
let good: RevocationPki;
let service: ServiceProcess;
let call: ReturnType<typeof authed>;
let input: Uint8Array;
/** Both PKIs' roots. */
let trust: string;

/** `p`'s signer signs `input`, the revocation data of its chain (fetched now, revoked or not) in `carrier`. */
async function signedWith(p: RevocationPki, carrier: Carrier): Promise<Uint8Array> {
  // What B-LT would fetch (OCSP for the signer, its responder named; the root's CRL for the intermediate), and the signer's CRL.
  const data = carrier === 'online' ? { certs: [], ocsps: [], crls: [] } : await collectValidationData(p.chain, [], { http, now: new Date(), keepRevoked: true });
  const signerCrl = new Uint8Array(await (await fetch(server.crlUrl(p.intermediateName))).arrayBuffer());
  const prepared = await preparePades({ pdf: input, certificateChain: p.chain, signingTime: new Date(), reserveTimestamp: true });
  let signedAttributes = prepared.signedAttributes;
  if (carrier === 'archival') {
    const archival = seq(oid(OID.adbeRevocationInfoArchival), setOf(seq(ctx(0, seq(...data.crls)), ctx(1, seq(...data.ocsps)))));
    signedAttributes = setOf(...children(readDerExact(signedAttributes)).map((a) => a.raw), archival);
  }
  const value = ecdsaRawToDer(signDigest(p.signerKeyPem, 'p256', new Uint8Array(createHash('sha256').update(signedAttributes).digest())));
  let cms = assembleCms({ signedAttributes, signatureValue: value, certificateChain: p.chain, algorithm: 'p256' });
  if (carrier === 'cms-crl') cms = withRevocationInfo(cms, { crls: [signerCrl, ...data.crls], ocsps: [] });
  if (carrier === 'cms-ocsp') cms = withRevocationInfo(cms, { crls: data.crls, ocsps: data.ocsps });
  const pdf = prepared.pdf.slice();
  embedContents(pdf, prepared.contentsOffset, prepared.contentsHexLength, cms);
  if (carrier !== 'dss') return pdf;
  const contents = Buffer.from(Buffer.from(pdf.subarray(prepared.contentsOffset, prepared.contentsOffset + prepared.contentsHexLength)).toString('latin1'), 'hex');
  return addDss(pdf, data, [{ signatureContents: new Uint8Array(contents), ...data }]);
}

async function viaCli(pdf: Uint8Array, name: string, args: string[]): Promise<Signature> {
  const file = join(home.home, `${name}.pdf`);
  writeFileSync(file, pdf);
  const r = await runCliAsync(['verify', file, '--json', '--trust', trust, ...args], { home: home.home });
  return parseJson<{ signatures: Signature[] }>(r).signatures[0]!;
}

async function viaApi(pdf: Uint8Array, body: Record<string, unknown>): Promise<Signature> {
  const res = await call('/v1/pades/verify', { method: 'POST', body: JSON.stringify({ pdf_base64: Buffer.from(pdf).toString('base64'), ...body }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { signatures: Signature[] }).signatures[0]!;
}

beforeAll(async () => {
  const wrapper = initEmbeddedWithWrapper(home.home);
  server = await startRevocationServer();
  [revoked, good, input] = await Promise.all([
    createRevocationPki(server, { algorithm: 'p256', signerCn: 'Revoked Signer' }),
    createRevocationPki(server, { algorithm: 'p256', signerCn: 'Good Signer' }),
    smallPdf('revoked signer').then((b) => new Uint8Array(b)),
  ]);
  await server.revoke(revoked.intermediateName, revoked.signerCertPath);
  trust = join(tempDir('localsign-revoked-trust-'), 'trust.pem');
  writeFileSync(trust, revoked.caCertPem + good.caCertPem);
  service = await startServiceProcess({ home: home.home, args: ['--trust', trust] });
  call = authed(service.url, wrapper);
});
afterAll(async () => {
  await Promise.all([service?.stop(), server?.close(), http.close()]);
  home.cleanup();
});

const REVOKED = /^CN=Revoked Signer,O=localsign test,C=ES is revoked since \d{4}-\d\d-\d\dT[\d:.]+Z \(keyCompromise\)$/;
const REVOKED_OCSP = /^CN=Revoked Signer,O=localsign test,C=ES is revoked since \d{4}-\d\d-\d\dT[\d:.]+Z$/;

describe('a revoked signer, in every carrier, through the CLI and the API', () => {
  for (const carrier of CARRIERS) {
    it(`${carrier}: never trusted, the revocation named, under either policy`, async () => {
      const pdf = await signedWith(revoked, carrier);
      const online = carrier === 'online' ? ['--online'] : [];
      const judged = [
        await viaCli(pdf, `revoked-${carrier}`, online),
        await viaCli(pdf, `revoked-${carrier}-lenient`, [...online, '--revocation', 'if-available']),
        ...(carrier === 'online' ? [] : [await viaApi(pdf, {}), await viaApi(pdf, { revocation: 'if-available' })]),
      ];
      for (const s of judged) {
        expect(s.digest_valid, s.problems.join('\n')).toBe(true);
        expect([s.valid, s.chain.trusted]).toEqual([false, false]);
        // The CRL gives the reason; an OCSP answer openssl makes gives none (RFC 6960 revocationReason is optional).
        expect(s.chain.failures, s.chain.failures.join('\n')).toEqual([expect.stringMatching(carrier === 'cms-crl' ? REVOKED : REVOKED_OCSP)]);
        expect(s.revocation[0]).toMatchObject({ status: 'revoked', found_in: { dss: 'dss', online: 'online' }[carrier as string] ?? 'signature' });
      }
    });
  }

  it('the same chain not revoked: trusted, each status good where it was found (CLI)', async () => {
    for (const carrier of CARRIERS) {
      const pdf = await signedWith(good, carrier);
      const s = await viaCli(pdf, `good-${carrier}`, carrier === 'online' ? ['--online'] : []);
      expect([s.valid, s.chain.trusted, s.chain.failures], carrier).toEqual([true, true, []]);
      expect(s.revocation.map((r) => [r.status, r.found_in]), carrier).toEqual([
        ['good', { dss: 'dss', online: 'online' }[carrier as string] ?? 'signature'],
        ['good', { dss: 'dss', online: 'online' }[carrier as string] ?? 'signature'],
      ]);
    }
  });
});
