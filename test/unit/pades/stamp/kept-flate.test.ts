import { inflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { describe, expect, it, vi } from 'vitest';
import { drawStampAppearance } from '../../../../src/pades/stamp/stamp';
import type { StampSpec } from '../../../../src/domain/pades';

/** Every deflateSync call's input length, from the real zlib. */
const zlib = vi.hoisted(() => ({ deflated: [] as number[] }));
vi.mock('node:zlib', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:zlib')>();
  const deflateSync = (input: Uint8Array, options?: import('node:zlib').ZlibOptions) => {
    zlib.deflated.push(input.byteLength);
    return real.deflateSync(input, options);
  };
  return { ...real, default: { ...real, deflateSync }, deflateSync };
});

const stamp: StampSpec = { page: 'first', x: 10, y: 10, width: 160, height: 30, lines: [{ text: 'Signed by Ada Lovelace', size: 10 }] };

/** The embedded font file's stream (FontFile2) of a document that holds one stamp. */
function fontFile(doc: PDFDocument): PDFRawStream {
  const streams = doc.context.enumerateIndirectObjects().map(([, o]) => o).filter((o): o is PDFRawStream => o instanceof PDFRawStream);
  const descriptor = doc.context.enumerateIndirectObjects().map(([, o]) => o).find((o) => 'get' in o && (o as never as { get(k: PDFName): unknown }).get(PDFName.of('FontFile2')));
  const ref = (descriptor as never as { get(k: PDFName): unknown }).get(PDFName.of('FontFile2'));
  const file = streams.find((s) => doc.context.getObjectRef(s) === ref);
  if (!file) throw new Error('no FontFile2');
  return file;
}

describe('the stamp font file is deflated once per content (issue 18)', () => {
  it('a second stamp with the same glyphs reuses the deflated font file: same bytes, no second compression', async () => {
    const first = await PDFDocument.create();
    await drawStampAppearance(first, stamp);
    const large = () => zlib.deflated.filter((n) => n >= 4096).length;
    expect(large()).toBe(1);
    const second = await PDFDocument.create();
    await drawStampAppearance(second, stamp);
    expect(large()).toBe(1);
    const a = fontFile(first).getContents();
    const b = fontFile(second).getContents();
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
    // A TrueType file after inflating: its sfnt version is 'true' (as fontkit writes a subset) or 0x00010000.
    expect(['true', '\0\u0001\0\0']).toContain(inflateSync(b).subarray(0, 4).toString('latin1'));
    // Other glyphs: another subset, compressed.
    await drawStampAppearance(await PDFDocument.create(), { ...stamp, lines: [{ text: 'Αθήνα 2026', size: 10 }] });
    expect(large()).toBe(2);
  });
});
