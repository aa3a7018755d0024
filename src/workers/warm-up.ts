import { generateKeyPairSync, sign } from 'node:crypto';
import type { StampSpec } from '../domain/pades';
import { checkAndPreparePades, finishPades, verifyPades } from '../pades/sign';
import { validatePdf } from '../pades/validate';
import { issueCertificate } from '../pki/issue-certificate';

/**
 * A PDF worker's first-time work, done once when it starts ahead of need (workers/pool.ts
 * keepWarm) instead of in a person's first signature: loading pdf-lib, fontkit and the stamp font,
 * and running each step a small PDF takes (the check with the stamp's place, prepare with a stamp,
 * finish and its read-back, validation) once, so the code is compiled too. A throwaway P-256 key
 * and certificate of its own, a blank page written here: no caller's data, nothing kept.
 */
const BLANK_PAGE = Buffer.from(
  [
    '%PDF-1.7',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj',
    '',
  ].join('\n'),
  'latin1',
);

function blankPdf(): Uint8Array {
  const body = BLANK_PAGE.toString('latin1');
  const offsets = [1, 2, 3].map((n) => body.indexOf(`${n} 0 obj`));
  const xref = `xref\n0 4\n0000000000 65535 f\r\n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n\r\n`).join('')}`;
  return new Uint8Array(Buffer.from(`${body}${xref}trailer << /Size 4 /Root 1 0 R >>\nstartxref\n${body.length}\n%%EOF\n`, 'latin1'));
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
  const { prepared } = await checkAndPreparePades({ pdf: blankPdf(), certificateChain: [certificate], signingTime: now, stamp: STAMP, signerName: 'localsign' }, STAMP);
  const signed = finishPades(prepared, new Uint8Array(sign('sha256', prepared.signedAttributes, key.privateKey)), { inPlace: true });
  verifyPades(signed);
  validatePdf(signed, { trustAnchors: [certificate], now });
  return { ms: Math.round(performance.now() - started) };
}
