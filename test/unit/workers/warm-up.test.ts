import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDocumentTask } from '../../../src/workers/document-tasks';
import { warmUpEngine, warmUpPdf } from '../../../src/workers/warm-up';
import { tempDir } from '../../helpers/temp-dir';

/**
 * The page a PDF worker's warm-up signs is written as most documents to sign are (an object stream,
 * a cross-reference stream, a text content stream in a standard font), so a first real document
 * finds those readers compiled. Held to readers we did not write: qpdf and mutool.
 */
describe('the warm-up page', () => {
  const file = join(tempDir('localsign-warm-up-'), 'warm-up.pdf');
  writeFileSync(file, warmUpPdf());

  it('is a PDF qpdf finds no fault in, with its objects in an object stream and a cross-reference stream', () => {
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toMatch(/No syntax or stream encoding errors found/);
    const xref = execFileSync('qpdf', ['--show-xref', file], { encoding: 'utf8' });
    expect(xref.match(/compressed; stream = 6,/g)).toHaveLength(4);
    // A cross-reference stream holds entries of type 2 only; a classic table cannot.
    expect(Buffer.from(warmUpPdf()).toString('latin1')).toMatch(/\/Type \/XRef/);
  });

  it('has one page whose text mutool reads', () => {
    expect(execFileSync('mutool', ['draw', '-F', 'txt', file], { encoding: 'utf8' })).toContain('localsign warm-up');
  });

  it('the warm-up signs it and validates the result', async () => {
    expect((await warmUpEngine()).ms).toBeGreaterThanOrEqual(0);
  });

  it('a worker skips it when a request came while the engine loaded, and runs it otherwise', async () => {
    // The request then goes first (the first signature at once after a start); it runs the same
    // code for the first time itself.
    expect(await runDocumentTask({ op: 'warm', scratch: null }, { waiting: () => 1 })).toEqual({ ms: 0, skipped: true });
    const ran = await runDocumentTask({ op: 'warm', scratch: null }, { waiting: () => 0 });
    expect(ran).not.toHaveProperty('skipped');
    // It ran: a throwaway signature and its validation take time.
    expect((ran as { ms: number }).ms).toBeGreaterThan(0);
  });
});
