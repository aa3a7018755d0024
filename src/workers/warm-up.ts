import { generateKeyPairSync, sign } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { StampSpec } from '../domain/pades';
import { checkAndPreparePades, finishPades, verifyPades } from '../pades/sign';
import { validatePdf } from '../pades/validate';
import { issueCertificate } from '../pki/issue-certificate';

/**
 * A PDF worker's first-time work, done once when it starts ahead of need (workers/pool.ts
 * keepWarm) instead of in a person's first signature: loading pdf-lib, fontkit and the stamp font,
 * and running each step a small PDF takes (the check with the stamp's place, prepare with a stamp,
 * finish and its read-back, validation) once, so the code is compiled too. A throwaway P-256 key
 * and certificate of its own, a page written here: no caller's data, nothing kept.
 */

/** `dict` with its data as a stream: `<< … /Length n /Filter /FlateDecode >> stream … endstream`. */
function flateStream(dict: string, data: Buffer): Buffer {
  const packed = deflateSync(data);
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${packed.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), packed, Buffer.from('\nendstream', 'latin1')]);
}

/**
 * A page as most documents to sign are written (pdf-lib's default, for one): a line of text in a
 * standard font with its content stream compressed, the other objects in a compressed object
 * stream, and the cross-reference table a compressed stream (ISO 32000-1 §7.5.7, §7.5.8). A first
 * real document then finds those readers compiled; after a warm-up on a blank page with a classic
 * table they were not (the first small PDF 3 s after a start took 18 ms longer than a blank one,
 * measured on a 2-core machine).
 */
export function warmUpPdf(): Uint8Array {
  const inStream: [number, string][] = [
    [1, '<< /Type /Catalog /Pages 2 0 R >>'],
    [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>'],
    [5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'],
  ];
  let body = '';
  const at: string[] = [];
  for (const [n, text] of inStream) {
    at.push(`${n} ${body.length}`);
    body += `${text}\n`;
  }
  const header = `${at.join(' ')}\n`;
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n', 'latin1')];
  const offsets = new Map<number, number>();
  const length = () => parts.reduce((sum, part) => sum + part.length, 0);
  const object = (n: number, content: Buffer) => {
    offsets.set(n, length());
    parts.push(Buffer.from(`${n} 0 obj\n`, 'latin1'), content, Buffer.from('\nendobj\n', 'latin1'));
  };
  object(4, flateStream('', Buffer.from('BT /F1 20 Tf 50 780 Td (localsign warm-up) Tj ET\n', 'latin1')));
  object(6, flateStream(`/Type /ObjStm /N ${inStream.length} /First ${header.length}`, Buffer.from(header + body, 'latin1')));
  // Rows of type 0 (free), 1 (an offset in the file) or 2 (an object stream and an index in it),
  // in fields of 1, 4 and 2 bytes (/W).
  const rows: [number, number, number][] = [[0, 0, 0xffff]];
  for (let n = 1; n <= 6; n += 1) {
    const index = inStream.findIndex(([m]) => m === n);
    rows.push(index >= 0 ? [2, 6, index] : [1, offsets.get(n)!, 0]);
  }
  rows.push([1, length(), 0]); // 7: the cross-reference stream itself, written next
  const table = Buffer.alloc(rows.length * 7);
  rows.forEach(([type, field2, field3], i) => {
    table.writeUInt8(type, i * 7);
    table.writeUInt32BE(field2, i * 7 + 1);
    table.writeUInt16BE(field3, i * 7 + 5);
  });
  const xrefAt = length();
  object(7, flateStream(`/Type /XRef /Size ${rows.length} /W [1 4 2] /Root 1 0 R`, table));
  parts.push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

/** A stamp as the default design draws one: text lines of two sizes with accents, on the last page. */
const STAMP: StampSpec = {
  page: 'last',
  x: 36,
  y: 36,
  width: 240,
  height: 72,
  lines: [
    { text: 'Digitally signed by localsign — warm-up', size: 10 },
    { text: 'Date: 2026-01-01 00:00 UTC', size: 8 },
    { text: 'Reason: préparation', size: 8 },
  ],
};

export async function warmUpEngine(): Promise<{ ms: number }> {
  const started = performance.now();
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const now = new Date();
  const certificate = issueCertificate({
    subject: { CN: 'localsign warm-up' },
    issuer: 'self',
    subjectPublicKey: new Uint8Array(key.publicKey.export({ type: 'spki', format: 'der' })),
    serial: Uint8Array.of(1),
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 3_600_000),
    ca: false,
    issuerAlgorithm: 'p256',
    sign: (tbs) => new Uint8Array(sign('sha256', tbs, key.privateKey)),
  });
  const { prepared } = await checkAndPreparePades({ pdf: warmUpPdf(), certificateChain: [certificate], signingTime: now, stamp: STAMP, signerName: 'localsign' }, STAMP);
  const signed = finishPades(prepared, new Uint8Array(sign('sha256', prepared.signedAttributes, key.privateKey)), { inPlace: true });
  verifyPades(signed);
  validatePdf(signed, { trustAnchors: [certificate], now });
  return { ms: Math.round(performance.now() - started) };
}
