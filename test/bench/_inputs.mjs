// Inputs of npm run bench: PDFs of a given size and the P12 the @signpdf pipeline signs with.
import { writeFileSync } from 'node:fs';
import forge from 'node-forge';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A one-page PDF with a line of text (what most signed documents look like, small). */
export async function smallPdf() {
  const d = await PDFDocument.create();
  const p = d.addPage([595, 842]);
  p.drawText('localsign benchmark', { x: 50, y: 780, size: 20, font: await d.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await d.save());
}

/** A PDF of about `bytes` (uncompressed streams make the size without making pdf-lib slow). */
export async function pdfOfSize(bytes) {
  const d = await PDFDocument.create();
  const page = d.addPage([595, 842]);
  const chunk = Math.min(8 * 1024 * 1024, bytes);
  for (let made = 0; made < bytes; made += chunk) {
    const stream = d.context.stream(Buffer.alloc(Math.min(chunk, bytes - made), 0x41), { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 1, 1] });
    d.context.register(stream);
  }
  page.drawText('sized', { x: 50, y: 780, size: 20, font: await d.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await d.save({ useObjectStreams: false }));
}

/** An RSA-2048 key and self-signed certificate as PKCS#12 (no password), for @signpdf/signer-p12. */
export function writeP12(file) {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const name = [{ name: 'commonName', value: 'Bench Signer' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(keys.privateKey, [cert], '', { algorithm: '3des' });
  writeFileSync(file, Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary'));
}
