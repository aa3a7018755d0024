// Bundled and run by test/bench/run.mjs in a fresh process: the PAdES engine alone on a large PDF
// (issue 3: peak memory within about 3x the document, a few seconds), without the HTTP/JSON
// transport around it. Prints one JSON line.
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkPdf } from '../../src/pades/pdf/pdf-check';
import { finishPades } from '../../src/pades/sign/finish';
import { preparePades } from '../../src/pades/sign/prepare';
import { verifyPades } from '../../src/pades/sign/verify';
import { issueCertificate } from '../../src/pki/issue-certificate';

const file = process.argv[2]!;
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spki = new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }));
const name = { CN: 'Bench Signer', O: 'localsign bench' };
const cert = issueCertificate({
  subject: name,
  issuer: 'self',
  subjectPublicKey: spki,
  serial: new Uint8Array([1, 2, 3]),
  notBefore: new Date(Date.now() - 3600_000),
  notAfter: new Date(Date.now() + 86_400_000),
  ca: false,
  issuerAlgorithm: 'p256',
  sign: (tbs) => new Uint8Array(sign('sha256', tbs, privateKey)),
});
const rss = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);
const pdf: Uint8Array = readFileSync(file); // a Buffer is a Uint8Array: no second copy
async function main(): Promise<void> {
  const before = rss();
  const t0 = performance.now();
  checkPdf(pdf);
  const prepared = await preparePades({ pdf, certificateChain: [cert], signingTime: new Date(), stamp: null });
  // The chip signs the digest; DER ECDSA from node:crypto over the signed attributes is the same value.
  const signature = new Uint8Array(sign('sha256', prepared.signedAttributes, privateKey));
  const signed = finishPades(prepared, signature);
  verifyPades(signed);
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ bytes: pdf.length, seconds, peakRssMb: rss(), rssBeforeMb: before }));
}
void main();
