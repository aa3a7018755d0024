import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PDFArray,
  PDFContentStream,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFRawStream,
  PDFRef,
  decodePDFRawStream,
  type PDFObject,
} from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import dejavu from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';
import { InvalidInputError } from '../../../../src/domain/errors';
import { drawStamp, drawStampAppearance } from '../../../../src/pades/stamp/stamp';
import type { StampSpec } from '../../../../src/domain/pades';

const redPng = readFileSync(join(__dirname, '../../../vectors/stamp/red-20x20.png')).toString('base64');
const base: StampSpec = { page: 'first', x: 10, y: 10, width: 100, height: 30, lines: [{ text: 'AB', size: 10 }] };

function streamText(obj: PDFObject | undefined): string {
  if (obj instanceof PDFContentStream) return Buffer.from(obj.getUnencodedContents()).toString('latin1');
  if (obj instanceof PDFRawStream) return Buffer.from(decodePDFRawStream(obj).decode()).toString('latin1');
  throw new Error(`not a stream: ${String(obj)}`);
}

function dictOf(obj: PDFObject | undefined): PDFDict {
  if (obj instanceof PDFDict) return obj;
  if (obj instanceof PDFRawStream || obj instanceof PDFContentStream) return obj.dict;
  throw new Error(`not a dictionary: ${String(obj)}`);
}

function nameOf(dict: PDFDict, key: string): string | undefined {
  return dict.get(PDFName.of(key))?.toString();
}

/** Every indirect object reachable from `ref`, following arrays, dictionaries and stream dicts. */
function reachable(doc: PDFDocument, ref: PDFRef): Map<string, PDFObject | undefined> {
  const seen = new Map<string, PDFObject | undefined>();
  const visit = (obj: PDFObject | undefined): void => {
    if (obj instanceof PDFRef) {
      if (seen.has(obj.toString())) return;
      const target = doc.context.lookup(obj);
      seen.set(obj.toString(), target);
      visit(target);
    } else if (obj instanceof PDFArray) {
      obj.asArray().forEach(visit);
    } else if (obj instanceof PDFDict) {
      for (const [, value] of obj.entries()) visit(value);
    } else if (obj instanceof PDFRawStream || obj instanceof PDFContentStream) {
      visit(obj.dict);
    }
  };
  visit(ref);
  return seen;
}

describe('drawStampAppearance', () => {
  it('writes the opaque white background, the border and the text as an exact content stream', async () => {
    const doc = await PDFDocument.create();
    const ref = await drawStampAppearance(doc, base);
    const form = doc.context.lookup(ref);
    // padding 1.8; baseline 30 - 1.8 - 10 * 1901/2048 (DejaVu ascent); A and B are subset glyphs 1, 2
    expect(streamText(form)).toBe(
      'q\n1 1 1 rg\n0 0 100 30 re\nf\nQ\nq\n0.25 G\n0.75 w\n0.375 0.375 99.25 29.25 re\nS\nQ\nBT\n0 g\n/F1 10 Tf\n1 0 0 1 1.8 18.918 Tm\n<00010002> Tj\nET\n',
    );
    const dict = dictOf(form);
    expect(nameOf(dict, 'Type')).toBe('/XObject');
    expect(nameOf(dict, 'Subtype')).toBe('/Form');
    expect(dict.get(PDFName.of('BBox'))?.toString()).toBe('[ 0 0 100 30 ]');
  });

  it('fills the design\'s background colour, or nothing with "none"', async () => {
    const tinted = await PDFDocument.create();
    expect(streamText(tinted.context.lookup(await drawStampAppearance(tinted, { ...base, background: '#ffeecc' })))).toMatch(/^q\n1 0\.933 0\.8 rg\n0 0 100 30 re\nf\nQ\nq\n0\.25 G/);
    const clear = await PDFDocument.create();
    expect(streamText(clear.context.lookup(await drawStampAppearance(clear, { ...base, background: 'none' })))).toMatch(/^q\n0\.25 G\n0\.75 w/);
    await expect(drawStampAppearance(await PDFDocument.create(), { ...base, background: 'red' })).rejects.toThrow('stamp.background must be a colour "#rrggbb" or "none"');
  });

  it('puts the font file, CIDFont, ToUnicode, image and form into doc.context', async () => {
    const doc = await PDFDocument.create();
    const ref = await drawStampAppearance(doc, {
      ...base,
      imagePngBase64: redPng,
      lines: [{ text: 'Zoë Ж Ω', size: 10 }],
    });
    const all = doc.context.enumerateIndirectObjects();
    const byRef = new Map(all.map(([r, o]) => [r.toString(), o]));
    const dicts = all.map(([r, o]) => [r, o instanceof PDFDict ? o : 'dict' in o ? (o as PDFRawStream).dict : null] as const);
    const find = (test: (d: PDFDict) => boolean) => dicts.filter(([, d]) => d !== null && test(d)).map(([r]) => r);

    const forms = find((d) => nameOf(d, 'Subtype') === '/Form');
    expect(forms.map(String)).toEqual([ref.toString()]);

    const type0 = find((d) => nameOf(d, 'Subtype') === '/Type0');
    expect(type0).toHaveLength(1);
    const font = dictOf(byRef.get(String(type0[0])));
    expect(nameOf(font, 'BaseFont')).toMatch(/^\/[A-Z]{6}\+DejaVuSans$/);
    expect(nameOf(font, 'Encoding')).toBe('/Identity-H');
    // The form's /Resources name that very font, and the image.
    const resources = dictOf(dictOf(byRef.get(ref.toString())).get(PDFName.of('Resources')));
    expect(dictOf(resources.get(PDFName.of('Font'))).get(PDFName.of('F1'))?.toString()).toBe(String(type0[0]));

    const toUnicode = streamText(byRef.get(String(font.get(PDFName.of('ToUnicode')))));
    for (const codePoint of ['005A', '006F', '00EB', '0020', '0416', '03A9']) {
      expect(toUnicode).toMatch(new RegExp(`<[0-9a-f]{4}> <${codePoint}>`, 'i'));
    }
    expect(toUnicode).toContain('6 beginbfchar');

    const descendants = font.get(PDFName.of('DescendantFonts')) as PDFArray;
    const cidFont = dictOf(byRef.get(String(descendants.get(0))));
    expect(nameOf(cidFont, 'Subtype')).toBe('/CIDFontType2');
    expect(nameOf(cidFont, 'CIDToGIDMap')).toBe('/Identity');
    const descriptor = dictOf(byRef.get(String(cidFont.get(PDFName.of('FontDescriptor')))));
    const fontFile = byRef.get(String(descriptor.get(PDFName.of('FontFile2')))) as PDFRawStream;
    const sfnt = decodePDFRawStream(fontFile).decode();
    // fontkit writes the subset with Apple's 'true' sfnt tag, a TrueType outline font (glyf table)
    expect(Buffer.from(sfnt.subarray(0, 4)).toString('latin1')).toBe('true');
    expect(Buffer.from(sfnt).includes('glyf')).toBe(true);
    expect(sfnt.length).toBeLessThan(dejavu.length / 10); // subset, not the 700 kB font

    const images = find((d) => nameOf(d, 'Subtype') === '/Image');
    expect(images).toHaveLength(1);
    expect(dictOf(resources.get(PDFName.of('XObject'))).get(PDFName.of('Im1'))?.toString()).toBe(String(images[0]));
    const image = dictOf(byRef.get(String(images[0])));
    expect([image.get(PDFName.of('Width'))?.toString(), image.get(PDFName.of('Height'))?.toString()]).toEqual(['20', '20']);

    // Nothing the form needs is missing from the context: a writer can serialise it without save().
    const closure = reachable(doc, ref);
    expect([...closure.values()].every((o) => o !== undefined)).toBe(true);
    expect(closure.size).toBe(7); // form, Type0, CIDFont, descriptor, font file, ToUnicode, image
  });

  it('adds only new objects to a loaded document: no page, catalog and old objects untouched', async () => {
    const source = await PDFDocument.create();
    source.addPage([200, 200]);
    const loaded = await PDFDocument.load(await source.save(), { updateMetadata: false });
    const before = new Map(loaded.context.enumerateIndirectObjects().map(([r, o]) => [r.toString(), o.toString()]));
    const largest = loaded.context.largestObjectNumber;
    const ref = await drawStampAppearance(loaded, base);
    const after = loaded.context.enumerateIndirectObjects();
    for (const [r, o] of after) {
      if (before.has(r.toString())) expect(o.toString()).toBe(before.get(r.toString()));
      else expect(r.objectNumber).toBeGreaterThan(largest);
    }
    expect(after.length - before.size).toBe(6); // form, Type0, CIDFont, descriptor, font file, ToUnicode
    expect(ref.objectNumber).toBeGreaterThan(largest);
    expect(loaded.getPageCount()).toBe(1);
  });

  it('is deterministic: same stamp, same bytes; other text, other subset tag', async () => {
    const draw = async (text: string) => {
      const doc = await PDFDocument.create();
      const ref = await drawStampAppearance(doc, { ...base, lines: [{ text, size: 10 }] });
      const closure = reachable(doc, ref);
      const font = [...closure.values()].map((o) => dictOf(o)).find((d) => nameOf(d, 'Subtype') === '/Type0');
      return { content: streamText(doc.context.lookup(ref)), baseFont: nameOf(font as PDFDict, 'BaseFont') };
    };
    const a = await draw('Αθήνα');
    expect(await draw('Αθήνα')).toEqual(a);
    expect((await draw('Москва')).baseFont).not.toBe(a.baseFont);
  });

  it('draws tabs and line breaks from filled values as spaces', async () => {
    const content = async (text: string) => {
      const doc = await PDFDocument.create();
      return streamText(doc.context.lookup(await drawStampAppearance(doc, { ...base, lines: [{ text, size: 10 }] })));
    };
    expect(await content('A\tB\nC')).toBe(await content('A B C'));
  });

  it('cuts a 1,000-character value at 6 pt with a "…" the embedded subset can draw, and warns naming the line', async () => {
    const doc = await PDFDocument.create();
    const { form, warnings } = await drawStamp(doc, { ...base, width: 200, height: 40, lines: [{ text: 'Signed', size: 10 }, { text: `by ${'W'.repeat(1000)}`, size: 10 }] });
    const content = streamText(doc.context.lookup(form));
    expect(content).toContain('/F1 10 Tf');
    expect(content).toContain('/F1 6 Tf');
    expect(content).not.toMatch(/\/F1 [0-5](\.\d+)? Tf/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^stamp line 2 was shortened to fit the stamp's width at 6 pt: \d+ of its 1003 characters are shown, cut with "…" \("by WWW/);
    // The subset's ToUnicode maps a glyph to U+2026 (a font without it would draw .notdef).
    const closure = reachable(doc, form);
    const toUnicode = [...closure.values()].find((o) => (o instanceof PDFRawStream || o instanceof PDFContentStream) && streamText(o).includes('beginbfchar'));
    expect(streamText(toUnicode)).toMatch(/<2026>/i);
    // A stamp that fits says nothing.
    expect((await drawStamp(await PDFDocument.create(), base)).warnings).toEqual([]);
  });

  it('keeps the vertical room of an empty line but draws nothing for it', async () => {
    const doc = await PDFDocument.create();
    const ref = await drawStampAppearance(doc, { ...base, height: 60, lines: [{ text: '', size: 10 }, { text: 'A', size: 10 }] });
    // second baseline: 60 - 3.6 - 9.282 (ascent, 1901/2048) - 2.358 (descent, 483/2048) - 1 (gap) - 9.282
    expect(streamText(doc.context.lookup(ref))).toContain('/F1 10 Tf\n1 0 0 1 3.6 34.477 Tm\n<0001> Tj\n');
    expect(streamText(doc.context.lookup(ref)).match(/Tj/g)).toHaveLength(1);
  });
});

describe('drawStampAppearance refuses a bad stamp with a message naming the field', () => {
  const cases: [string, StampSpec, string][] = [
    ['zero width', { ...base, width: 0 }, 'stamp.width must be a positive number of points'],
    ['negative height', { ...base, height: -5 }, 'stamp.height must be a positive number of points'],
    ['NaN size', { ...base, lines: [{ text: 'a', size: 8 }, { text: 'b', size: Number.NaN }] }, 'stamp.lines[1].size must be a positive number of points'],
    ['lines not a list', { ...base, lines: 'x' as never }, 'stamp.lines must be a list'],
    ['base64 with junk', { ...base, imagePngBase64: 'iVBOR w0K' }, 'stamp.image_png_base64 must be standard base64 (RFC 4648 §4)'],
    ['not a PNG', { ...base, imagePngBase64: Buffer.from('GIF89a....').toString('base64') }, 'stamp.image_png_base64 is not a PNG image (no PNG signature)'],
    [
      'broken PNG',
      { ...base, imagePngBase64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64') },
      'stamp.image_png_base64 is not a readable PNG image',
    ],
  ];
  for (const [name, stamp, message] of cases) {
    it(name, async () => {
      const doc = await PDFDocument.create();
      const error = await drawStampAppearance(doc, stamp).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toBe(message);
    });
  }

  it('accepts base64 broken into MIME lines', async () => {
    const doc = await PDFDocument.create();
    const wrapped = redPng.replace(/(.{20})/g, '$1\r\n');
    await expect(drawStampAppearance(doc, { ...base, imagePngBase64: wrapped })).resolves.toBeInstanceOf(PDFRef);
  });
});
