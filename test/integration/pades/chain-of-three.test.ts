/**
 * Sign, sign the output, sign again (RSA, P-256, RSA): each signature is its own incremental
 * update, so every earlier signature must stay valid (CONTRACT: "every signature already in the
 * PDF stays valid") per pdfsig, mutool, openssl and the lint. Run on a classic-xref file, on a
 * cross-reference-stream file and on the hybrid-reference file (each update must continue the
 * reference style of the file it extends, ISO 32000-1 §7.5.6 and §7.5.8.4).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSignatureDictionaries } from '../../helpers/pades-lint';
import type { StampSpec } from '../../../src/domain/pades';
import { CORPUS_DIR, signWithEngine } from '../../helpers/pdf-corpus';
import { extractCms, inspectSignedPdf, opensslCmsVerify } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

const STAMP: StampSpec = {
  page: 'first', x: 40, y: 40, width: 220, height: 60,
  lines: [{ text: 'Signed by Chain Signer P-256', size: 10 }, { text: 'Reason: Corpus', size: 8 }],
};

let rsa: TestPki;
let p256: TestPki;
let dir: string;

beforeAll(async () => {
  dir = tempDir('localsign-chain-');
  rsa = await createTestPki({ algorithm: 'rsa', signerCn: 'Chain Signer RSA' });
  p256 = await createTestPki({ algorithm: 'p256', signerCn: 'Chain Signer P-256' });
});

afterAll(() => {
  for (const d of [dir, rsa?.dir, p256?.dir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('three signatures in a row', () => {
  it.each(['pdflib-xref-table.pdf', 'qpdf-object-streams.pdf', 'hand-hybrid-xref.pdf'])('%s', async (name) => {
    const steps = [
      { pki: () => rsa, algorithm: 'rsa' as const },
      // The middle one is visible: its widget and appearance stream must not disturb the others.
      { pki: () => p256, algorithm: 'p256' as const, stamp: STAMP },
      { pki: () => rsa, algorithm: 'rsa' as const },
    ];
    const revisions: Uint8Array[] = [new Uint8Array(readFileSync(join(CORPUS_DIR, name)))];
    for (const [i, step] of steps.entries()) {
      const input = revisions[i]!;
      const { output } = await signWithEngine(input, { ...step.pki(), algorithm: step.algorithm }, { stamp: step.stamp ?? null });
      expect(Buffer.compare(output.subarray(0, input.length), input), `step ${i + 1} keeps its input as prefix`).toBe(0);
      revisions.push(output);
    }
    const final = revisions[3]!;
    const file = join(dir, `chain-${name}`);
    writeFileSync(file, final);
    const report = await inspectSignedPdf(file, final);

    expect(report.pdfsig.map((s) => [s.validation, s.coversWholeDocument, s.signerCommonName]), report.raw.pdfsig).toEqual([
      ['Signature is Valid.', false, 'Chain Signer RSA'],
      ['Signature is Valid.', false, 'Chain Signer P-256'],
      ['Signature is Valid.', true, 'Chain Signer RSA'],
    ]);
    // Signature n covers exactly revision n: its range ends where the next update begins.
    expect(report.pdfsig.map((s) => s.byteRange![2] + s.byteRange![3])).toEqual(revisions.slice(1).map((r) => r.length));
    expect(report.mutool.map((s) => s.digest), report.raw.mutool).toEqual(['edited-after-signing', 'edited-after-signing', 'unchanged']);
    expect(report.qpdf.ok, report.qpdf.raw).toBe(true);
    expect(report.lint).toEqual({ ok: true, problems: [], signatures: 3 });

    expect(findSignatureDictionaries(final)).toHaveLength(3);
    // The stamp's widget spans x..x+width, y..y+height (ISO 32000-1 §12.5.2 /Rect).
    expect(Buffer.from(final).toString('latin1').match(/\/Rect\s*\[\s*40\s+40\s+260\s+100\s*\]/g)).toHaveLength(1);
    for (const [i, step] of steps.entries()) {
      const { cms, signedBytes } = extractCms(final, i);
      const verdict = await opensslCmsVerify(cms, signedBytes, step.pki().caCertPath);
      expect(verdict.ok, `signature ${i + 1}: ${verdict.raw}`).toBe(true);
    }
  });
});
