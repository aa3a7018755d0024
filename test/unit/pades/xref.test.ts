import { describe, it, expect } from 'vitest';
import { PDFContext } from 'pdf-lib';
import { findStartxref, readXrefChain } from '../../../src/pades/xref';
import { PdfInputError } from '../../../src/errors/errors';
import { appendCatalogUpdate, latin1Text, makeHybridPdf, makePdf, patchText } from './_pdf-fixtures';

describe('cross-reference chain', () => {
  it('finds the last startxref offset', async () => {
    const pdf = await makePdf();
    const text = latin1Text(pdf);
    expect(findStartxref(pdf)).toBe(text.lastIndexOf('\nxref\n') + 1);
  });

  it('reads a classic table: one section, offsets of every object', async () => {
    const pdf = await makePdf({ pages: 2 });
    const chain = readXrefChain(pdf);
    expect(chain.lastKind).toBe('table');
    expect(chain.sectionCount).toBe(1);
    const text = latin1Text(pdf);
    for (let n = 1; n < chain.size; n++) {
      const entry = chain.entries.get(n);
      expect(entry?.type).toBe('offset');
      if (entry?.type === 'offset') expect(text.startsWith(`${n} 0 obj`, entry.offset)).toBe(true);
    }
  });

  it('reads xref streams with compressed entries', async () => {
    const chain = readXrefChain(await makePdf({ pages: 2, objectStreams: true }));
    expect(chain.lastKind).toBe('stream');
    expect([...chain.entries.values()].filter((e) => e.type === 'compressed').length).toBeGreaterThan(3);
  });

  it('merges the hidden /XRefStm entries of a hybrid file over the table placeholders', () => {
    const chain = readXrefChain(makeHybridPdf());
    expect(chain.lastKind).toBe('hybrid');
    expect(chain.entries.get(4)).toEqual({ type: 'compressed', streamNumber: 5, index: 0 });
    expect(chain.entries.get(0)).toEqual({ type: 'free' });
    expect(chain.size).toBe(8);
    expect(chain.id?.size()).toBe(2);
  });

  it('follows /Prev and lets the newest section win', async () => {
    const base = await makePdf();
    const updated = appendCatalogUpdate(base);
    const chain = readXrefChain(updated, PDFContext.create());
    expect(chain.sectionCount).toBe(2);
    expect(chain.startxref).toBe(latin1Text(updated).lastIndexOf('\nxref\n') + 1);
    const rootNum = Number(latin1Text(base).match(/\/Root (\d+) 0 R/)![1]);
    expect(chain.entries.get(rootNum)).toEqual({ type: 'offset', offset: base.length, generation: 0 });
  });

  it('refuses a /Prev loop', async () => {
    const base = await makePdf();
    const updated = appendCatalogUpdate(base);
    const text = latin1Text(updated);
    const own = String(text.lastIndexOf('\nxref\n') + 1);
    const prev = text.match(/\/Prev (\d+)/)![1]!;
    const looped = patchText(updated, `/Prev ${prev}`, `/Prev ${own.padStart(prev.length, '0')}`);
    expect(() => readXrefChain(looped)).toThrow(PdfInputError);
    expect(() => readXrefChain(looped)).toThrow(`cross-reference data is broken: /Prev chain loops back to byte ${own}`);
  });
});
