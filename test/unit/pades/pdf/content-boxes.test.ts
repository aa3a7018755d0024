import { PDFDocument, PDFName, PDFRef, type PDFDict } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { PdfReader } from '../../../../src/pades/pdf/pdf-reader';
import { findAnnotationBoxes, findContentBoxes, type ContentBox } from '../../../../src/pades/pdf/content-boxes';
import { findPage } from '../../../../src/pades/pdf/signature-field';

const PAGE = { x1: 0, y1: 0, x2: 600, y2: 800 };

/**
 * A one-page PDF drawing `content` with font F1 (simple, /Widths 500 for codes 65-70, ascent
 * 800, descent -200), F2 (Helvetica without /Widths), F3 (Type0 Identity-H, /W gives CID 1 a
 * width of 600, /DW 1000), F4 (the same CIDFont written vertically, Identity-V), image Im1 and form Fm1 (text "AB" in F1 at 10 pt, /Matrix 2 0 0 2 0 0).
 */
async function pageWith(content: string, extra: (doc: PDFDocument, page: PDFDict) => void = () => {}): Promise<{ reader: PdfReader; page: PDFDict }> {
  const doc = await PDFDocument.create();
  const ctx = doc.context;
  const descriptor = ctx.register(ctx.obj({ Type: 'FontDescriptor', FontName: 'Test', Ascent: 800, Descent: -200, FontBBox: [0, -150, 900, 750], Flags: 32 }));
  const f1 = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'TrueType', BaseFont: 'Test', FirstChar: 65, LastChar: 70, Widths: [500, 500, 500, 500, 500, 500], FontDescriptor: descriptor }));
  const f2 = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' }));
  const cid = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'CIDFontType2', BaseFont: 'Test', DW: 1000, W: [1, [600]], FontDescriptor: descriptor }));
  const f3 = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: 'Test', Encoding: 'Identity-H', DescendantFonts: [cid] }));
  const f4 = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: 'Test', Encoding: 'Identity-V', DescendantFonts: [cid] }));
  const im1 = ctx.register(ctx.stream(new Uint8Array(3), { Type: 'XObject', Subtype: 'Image', Width: 1, Height: 1, ColorSpace: 'DeviceRGB', BitsPerComponent: 8 }));
  const fm1 = ctx.register(ctx.stream('BT /F1 10 Tf 0 0 Td (AB) Tj ET', { Type: 'XObject', Subtype: 'Form', BBox: [0, 0, 100, 100], Matrix: [2, 0, 0, 2, 0, 0], Resources: { Font: { F1: f1 } } }));
  const page = doc.addPage([600, 800]);
  page.node.set(PDFName.of('Resources'), ctx.obj({ Font: { F1: f1, F2: f2, F3: f3, F4: f4 }, XObject: { Im1: im1, Fm1: fm1 } }));
  page.node.set(PDFName.of('Contents'), ctx.register(ctx.stream(content)));
  extra(doc, page.node);
  const reader = new PdfReader(await doc.save({ useObjectStreams: false }));
  const { dict } = reader.catalog();
  return { reader, page: findPage(reader, dict, 1).dict };
}

async function boxes(content: string): Promise<ContentBox[]> {
  const { reader, page } = await pageWith(content);
  const found = findContentBoxes(reader, page, PAGE);
  expect(found.unreadable).toBe(false);
  return found.boxes.map((b) => ({ ...b, x1: round(b.x1), y1: round(b.y1), x2: round(b.x2), y2: round(b.y2) }));
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const text = (x1: number, y1: number, x2: number, y2: number): ContentBox => ({ kind: 'text', x1, y1, x2, y2 });

describe('findContentBoxes: text', () => {
  it('spans every glyph\'s advance and the font\'s full height (the larger of /Ascent, /Descent and /FontBBox)', async () => {
    // "ABC" at 10 pt: 3 × 500/1000 × 10 = 15 pt wide; 8 pt above the baseline, 2 below.
    expect(await boxes('BT /F1 10 Tf 100 200 Td (ABC) Tj ET')).toEqual([text(100, 198, 115, 208)]);
  });

  it('follows TJ adjustments, character spacing, horizontal scaling, rise and leading', async () => {
    // TJ: A, then -1000/1000 × 10 = +10 pt, then B: 5 + 10 + 5 = 20 pt.
    expect(await boxes('BT /F1 10 Tf 100 200 Td [(A) -1000 (B)] TJ ET')).toEqual([text(100, 198, 120, 208)]);
    // Tc 1 adds 1 pt per glyph; Tz 50 halves everything horizontal: (5 + 1) × 2 × 0.5 = 6.
    expect(await boxes('BT /F1 10 Tf 1 Tc 50 Tz 100 200 Td (AB) Tj ET')).toEqual([text(100, 198, 106, 208)]);
    // Ts 5 raises the glyphs; T* moves down by TL.
    expect(await boxes('BT /F1 10 Tf 5 Ts 100 200 Td (A) Tj ET')).toEqual([text(100, 203, 105, 213)]);
    expect(await boxes('BT /F1 10 Tf 12 TL 100 200 Td (A) Tj T* (A) Tj ET')).toEqual([text(100, 198, 105, 208), text(100, 186, 105, 196)]);
    // ' and " move to the next line first.
    expect(await boxes("BT /F1 10 Tf 12 TL 100 200 Td (A) ' ET")).toEqual([text(100, 186, 105, 196)]);
    expect(await boxes('BT /F1 10 Tf 12 TL 100 200 Td 0 2 (AA) " ET')).toEqual([text(100, 186, 114, 196)]);
  });

  it('moves the text matrix past each string: two Tj in a row sit side by side', async () => {
    expect(await boxes('BT /F1 10 Tf 100 200 Td (AB) Tj (C) Tj ET')).toEqual([text(100, 198, 110, 208), text(110, 198, 115, 208)]);
  });

  it('maps through Tm and the CTM, and q/Q restores the CTM', async () => {
    expect(await boxes('q 2 0 0 2 10 10 cm BT /F1 10 Tf 1 0 0 1 50 50 Tm (A) Tj ET Q BT /F1 10 Tf 1 0 0 1 50 50 Tm (A) Tj ET')).toEqual([
      text(110, 106, 120, 126),
      text(50, 48, 55, 58),
    ]);
    // Rotated 90°: the box turns with the text.
    expect(await boxes('BT /F1 10 Tf 0 1 -1 0 100 100 Tm (AB) Tj ET')).toEqual([text(92, 100, 102, 110)]);
  });

  it('reads standard-14 widths when a font has no /Widths, and two-byte codes of Identity-H fonts', async () => {
    // Helvetica "W" is 944/1000 wide; no descriptor: ascent 1, descent -0.35 of the size.
    expect(await boxes('BT /F2 10 Tf 100 200 Td (W) Tj ET')).toEqual([text(100, 196.5, 109.44, 210)]);
    // <0001 0002>: CID 1 (600) and CID 2 (the /DW 1000): 16 pt at 10 pt.
    expect(await boxes('BT /F3 10 Tf 100 200 Td <00010002> Tj ET')).toEqual([text(100, 198, 116, 208)]);
  });

  it('bounds vertical writing down the page: two glyphs of 10 pt take 20 pt, one em spare around', async () => {
    expect(await boxes('BT /F4 10 Tf 100 200 Td <00010002> Tj <0003> Tj ET')).toEqual([text(90, 170, 110, 210), text(90, 160, 110, 190)]);
  });
});

describe('findContentBoxes: graphics', () => {
  it('bounds filled and stroked paths, the stroke by half its width', async () => {
    expect(await boxes('10 20 30 40 re f')).toEqual([{ kind: 'path', x1: 10, y1: 20, x2: 40, y2: 60 }]);
    expect(await boxes('4 w 10 20 m 50 20 l S')).toEqual([{ kind: 'path', x1: 8, y1: 18, x2: 52, y2: 22 }]);
    expect(await boxes('10 20 m 30 80 40 10 60 20 c f')).toEqual([{ kind: 'path', x1: 10, y1: 10, x2: 60, y2: 80 }]);
  });

  it('paints nothing for a path ended by n, and clips later painting to a W n path', async () => {
    expect(await boxes('10 10 100 100 re n')).toEqual([]);
    expect(await boxes('q 0 0 50 50 re W n 0 0 200 200 re f Q 0 0 10 10 re f')).toEqual([
      { kind: 'path', x1: 0, y1: 0, x2: 50, y2: 50 },
      { kind: 'path', x1: 0, y1: 0, x2: 10, y2: 10 },
    ]);
  });

  it('places an image on the unit square mapped by the CTM, and a shading on the clip', async () => {
    expect(await boxes('q 200 0 0 100 50 60 cm /Im1 Do Q')).toEqual([{ kind: 'image', x1: 50, y1: 60, x2: 250, y2: 160 }]);
    expect(await boxes('q 10 10 20 20 re W n /Sh1 sh Q')).toEqual([{ kind: 'path', x1: 10, y1: 10, x2: 30, y2: 30 }]);
  });

  it('walks a form XObject with its /Matrix and resources, clipped to its /BBox', async () => {
    // "AB" at 10 pt in the form: 10 × 10 pt, doubled by /Matrix, moved by the cm.
    expect(await boxes('q 1 0 0 1 100 100 cm /Fm1 Do Q')).toEqual([text(100, 96, 120, 116)]);
  });

  it('skips an inline image\'s data (even bytes that look like operators) and bounds it', async () => {
    const boxesFound = await boxes('q 30 0 0 20 5 5 cm BI /W 2 /H 1 /CS /G /BPC 8 ID (Tj) EIx Q\nEI Q BT /F1 10 Tf 100 200 Td (A) Tj ET');
    expect(boxesFound).toEqual([{ kind: 'image', x1: 5, y1: 5, x2: 35, y2: 25 }, text(100, 198, 105, 208)]);
  });

  it('counts the whole page when a content stream cannot be decoded', async () => {
    const { reader, page } = await pageWith('', (doc, node) => {
      node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream('garbage', { Filter: 'FlateDecode' })));
    });
    expect(findContentBoxes(reader, page, PAGE).unreadable).toBe(true);
  });
});

describe('findAnnotationBoxes', () => {
  it('lists visible annotations and leaves out popups, hidden ones and zero-size ones', async () => {
    const { reader, page } = await pageWith('', (doc, node) => {
      const annot = (o: Record<string, unknown>): PDFRef => doc.context.register(doc.context.obj({ Type: 'Annot', ...o } as never));
      node.set(PDFName.of('Annots'), doc.context.obj([
        annot({ Subtype: 'Widget', Rect: [300, 400, 100, 350] }),
        annot({ Subtype: 'Popup', Rect: [0, 0, 50, 50] }),
        annot({ Subtype: 'Text', Rect: [0, 0, 50, 50], F: 2 }),
        annot({ Subtype: 'Widget', Rect: [0, 0, 0, 0] }),
        annot({ Subtype: 'FreeText', Rect: [10, 10, 20, 20], F: 4 }),
      ]));
    });
    expect(findAnnotationBoxes(reader, page)).toEqual([
      { x1: 100, y1: 350, x2: 300, y2: 400 },
      { x1: 10, y1: 10, x2: 20, y2: 20 },
    ]);
  });
});
