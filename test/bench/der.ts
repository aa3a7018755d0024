// Bundled and run by test/bench/run.mjs: our DER module against node-forge's asn1 on the work the
// engine does per signature: read a certificate's issuer, serial and key (CMS SignerInfo and
// signing-certificate-v2), and read a CMS SignedData back (verification before DONE). Prints JSON.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { readCertificate } from '../../src/der/certificate-fields';
import { parseSignedData } from '../../src/der/cms-fields';
import { assembleCms, buildSignedAttributes } from '../../src/pades/cms/cms';

function time(fn: () => void, runs = 2000): number {
  for (let i = 0; i < 200; i += 1) fn();
  const t = performance.now();
  for (let i = 0; i < runs; i += 1) fn();
  return ((performance.now() - t) * 1000) / runs; // µs per run
}

const dir = mkdtempSync(join(tmpdir(), 'localsign-bench-der-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=Bench signer/O=localsign', '-days', '30', '-keyout', join(dir, 'k.pem'), '-outform', 'DER', '-out', join(dir, 'c.der')], { stdio: 'ignore' });
const cert = new Uint8Array(readFileSync(join(dir, 'c.der')));
const attrs = buildSignedAttributes({ documentDigest: new Uint8Array(32), signerCertificate: cert });
const cms = assembleCms({ signedAttributes: attrs, signatureValue: new Uint8Array(256), certificateChain: [cert], algorithm: 'rsa', timestampToken: null });
const binary = (u: Uint8Array) => Buffer.from(u).toString('binary');

const ours = {
  certificate: time(() => readCertificate(cert)),
  signedData: time(() => parseSignedData(cms)),
};
const forgeTimes = {
  certificate: time(() => {
    const asn1 = forge.asn1.fromDer(binary(cert));
    forge.pki.certificateFromAsn1(asn1);
  }),
  signedData: time(() => forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(binary(cms)))),
};
// Round trip: does forge give back the exact bytes it read? Signed attributes and issuer names
// must be byte-exact (RFC 5652 §5.4, RFC 5280 §7.1).
const roundTrip = binary(cert) === forge.asn1.toDer(forge.asn1.fromDer(binary(cert))).getBytes();
console.log(JSON.stringify({ ours, forge: forgeTimes, forgeRoundTripExact: roundTrip }));
