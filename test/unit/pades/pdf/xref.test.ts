import { describe, it, expect } from 'vitest';
import { PDFContext } from 'pdf-lib';
import { deflateSync } from 'node:zlib';
import { findStartxref, MAX_XREF_ENTRIES, readXrefChain } from '../../../../src/pades/pdf/xref';
import { PdfInputError } from '../../../../src/domain/errors';
import { hugeIndexXref, xrefStreamPdf, zeroWidthXref } from '../../../helpers/hostile-pdfs';
import { appendCatalogUpdate, latin1Text, makeHybridPdf, makePdf, patchText } from '../_pdf-fixtures';

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

/** Rows of an xref stream with /W [1 2 1]: type, field 2, field 3 (ISO 32000-1 §7.5.8.2 Table 18). */
function rows(...r: [number, number, number][]): Buffer {
  return Buffer.from(r.flatMap(([t, f2, f3]) => [t, f2 >> 8, f2 & 0xff, f3]));
}

/** Offsets of objects 1-3 in an xrefStreamPdf, read back from the file. */
function offsetsOf(pdf: Uint8Array): number[] {
  const text = latin1Text(pdf);
  return [1, 2, 3].map((n) => text.indexOf(`${n} 0 obj`));
}

describe('cross-reference streams whose claims exceed their data (issue 15)', () => {
  it('reads /Index ranges in order, each row where the pairs put it', () => {
    // First build to learn the offsets (they do not depend on the data, which comes after them).
    const probe = xrefStreamPdf('/Size 5 /Root 1 0 R /W [1 2 1] /Index [0 2 2 2]', Buffer.alloc(16));
    const [o1, o2, o3] = offsetsOf(probe);
    const pdf = xrefStreamPdf('/Size 5 /Root 1 0 R /W [1 2 1] /Index [0 2 2 2]', rows([0, 0, 255], [1, o1!, 0], [1, o2!, 0], [1, o3!, 0]));
    const chain = readXrefChain(pdf);
    expect([...chain.entries]).toEqual([
      [0, { type: 'free' }], [1, { type: 'offset', offset: o1, generation: 0 }],
      [2, { type: 'offset', offset: o2, generation: 0 }], [3, { type: 'offset', offset: o3, generation: 0 }],
    ]);
  });

  it('refuses zero-width rows at once, whatever /Index claims (a 10 KB /Index took 50 s)', () => {
    const t0 = performance.now();
    expect(() => readXrefChain(zeroWidthXref(10_240))).toThrow('cross-reference data is broken: /W [0 0 0] in the cross-reference stream at byte 192: rows of zero bytes');
    expect(() => readXrefChain(hugeIndexXref())).toThrow(PdfInputError);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('refuses an /Index total the data cannot hold, before reading a row (20 million claimed: +1.3 GB and a 500)', () => {
    const t0 = performance.now();
    expect(() => readXrefChain(hugeIndexXref([1, 2, 1]))).toThrow(
      'cross-reference data is broken: cross-reference stream at byte 192 is truncated: /Index lists 20000000 rows of 4 bytes, the data holds 1',
    );
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('refuses /Index entries that are not pairs of non-negative integers, and a bad /Size or /W', () => {
    const bad = (dict: string) => () => readXrefChain(xrefStreamPdf(`/Root 1 0 R ${dict}`, Buffer.alloc(16)));
    const message = 'is not pairs of non-negative integers';
    expect(bad('/Size 4 /W [1 2 1] /Index [0 2 2]')).toThrow(message);
    expect(bad('/Size 4 /W [1 2 1] /Index [0 -2]')).toThrow(message);
    expect(bad('/Size 4 /W [1 2 1] /Index [0 1.5]')).toThrow(message);
    expect(bad('/Size 4 /W [1 2 1] /Index [/A 2]')).toThrow(message);
    expect(bad('/Size 4 /W [1 2 1] /Index 4')).toThrow(message);
    expect(bad('/Size -4 /W [1 2 1]')).toThrow('lacks /W or a /Size that is a non-negative integer');
    expect(bad('/Size 4 /W [1 2.5 1]')).toThrow('bad /W');
  });

  it('refuses more entries than a document may hold, before making them', () => {
    // One byte per row (/W [1 0 0]): MAX + 1 rows of free entries from 4 KiB of FlateDecode data.
    const rowsData = deflateSync(Buffer.alloc(MAX_XREF_ENTRIES + 1));
    const pdf = xrefStreamPdf(`/Size ${MAX_XREF_ENTRIES + 1} /Root 1 0 R /W [1 0 0] /Filter /FlateDecode`, rowsData);
    const t0 = performance.now();
    expect(() => readXrefChain(pdf)).toThrow(`document too complex: more than ${MAX_XREF_ENTRIES} cross-reference entries (cross-reference stream at byte 192)`);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('refuses a table subsection counting more entries than the rest of the file holds', async () => {
    const base = latin1Text(await makePdf());
    const at = base.lastIndexOf('\nxref\n') + 1;
    // The same table announcing 99,999,999 entries (the section is at the end: no offset moves).
    const claimed = `${base.slice(0, at)}${base.slice(at).replace(/^xref\n0 \d+\n/, 'xref\n0 99999999\n')}`;
    const t0 = performance.now();
    expect(() => readXrefChain(new Uint8Array(Buffer.from(claimed, 'latin1')))).toThrow(
      `cross-reference data is broken: the subsection at byte ${at + 'xref\n0 99999999\n'.length} lists 99999999 entries, more than the rest of the file holds`,
    );
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});

