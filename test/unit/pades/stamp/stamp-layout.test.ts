import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutStamp, type StampFontMetrics } from '../../../../src/pades/stamp/stamp-layout';

/** Every character half an em wide; ascent 0.8, descent 0.2: numbers easy to check by hand. */
const mono: StampFontMetrics = {
  widthOfTextAtSize: (text, size) => [...text].length * size * 0.5,
  ascent: 0.8,
  descent: 0.2,
};

describe('layoutStamp', () => {
  it('puts lines top to bottom and shrinks a long one to the width', () => {
    // padding = 6% of the smaller side (60) = 3.6; text width 200 - 7.2 = 192.8
    const layout = layoutStamp(
      { width: 200, height: 60, lines: [{ text: 'abc', size: 10 }, { text: 'x'.repeat(100), size: 10 }] },
      mono,
    );
    expect(layout.border).toEqual({ x: 0.375, y: 0.375, width: 199.25, height: 59.25, lineWidth: 0.75 });
    expect(layout.image).toBeNull();
    expect(layout.lines).toHaveLength(2);
    expect(layout.lines[0]).toEqual({ text: 'abc', size: 10, x: expect.closeTo(3.6, 9), y: expect.closeTo(48.4, 9) });
    // 10 * 192.8 / 500 = 3.856, floored to 3.85; baseline 48.4 - 2 (descent) - 1 (gap) - 3.08 (ascent)
    expect(layout.lines[1]).toEqual({ text: 'x'.repeat(100), size: 3.85, x: expect.closeTo(3.6, 9), y: expect.closeTo(42.32, 9) });
  });

  it('drops the first line that does not fit the height and every line after it', () => {
    // padding 1.8; baselines 20.2 and 9.2; a third 10 pt line would reach below 0
    const layout = layoutStamp(
      {
        width: 100,
        height: 30,
        lines: [
          { text: 'one', size: 10 },
          { text: 'two', size: 10 },
          { text: 'three', size: 10 },
          { text: 'tiny', size: 1 },
        ],
      },
      mono,
    );
    expect(layout.lines.map((l) => [l.text, l.size, Number(l.y.toFixed(6))])).toEqual([
      ['one', 10, 20.2],
      ['two', 10, 9.2],
    ]);
  });

  it('shrinks a first line taller than the box to its height', () => {
    // padding 1 (the minimum); room 10 - 2 = 8 pt for ascent + descent
    const layout = layoutStamp({ width: 100, height: 10, lines: [{ text: 'Hi', size: 20 }] }, mono);
    expect(layout.lines).toEqual([{ text: 'Hi', size: 8, x: 1, y: expect.closeTo(2.6, 9) }]);
  });

  it('puts the image on the left at full inner height and the text to its right', () => {
    const layout = layoutStamp(
      { width: 200, height: 60, lines: [{ text: 'ok', size: 10 }], image: { width: 20, height: 20 } },
      mono,
    );
    expect(layout.image).toEqual({ x: expect.closeTo(3.6, 9), y: expect.closeTo(3.6, 9), width: expect.closeTo(52.8, 9), height: expect.closeTo(52.8, 9) });
    expect(layout.lines[0]?.x).toBeCloseTo(60, 9);
  });

  it('limits a wide image to 40% of the inner width, centred vertically, keeping its aspect', () => {
    const layout = layoutStamp(
      { width: 200, height: 60, lines: [{ text: 'ok', size: 10 }], image: { width: 100, height: 10 } },
      mono,
    );
    expect(layout.image?.width).toBeCloseTo(77.12, 9);
    expect(layout.image?.height).toBeCloseTo(7.712, 9);
    expect(layout.image?.y).toBeCloseTo(26.144, 9);
  });

  it('centres an image-only stamp in the whole box', () => {
    const layout = layoutStamp({ width: 120, height: 50, lines: [], image: { width: 40, height: 10 } }, mono);
    expect(layout.image).toEqual({ x: 3, y: 10.75, width: 114, height: 28.5 });
    expect(layout.lines).toEqual([]);
  });

  it('keeps every drawn line inside the padded box at or below its requested size', () => {
    const line = fc.record({
      text: fc.string({ maxLength: 60 }),
      size: fc.double({ min: 0.5, max: 72, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.double({ min: 5, max: 600, noNaN: true }),
        fc.double({ min: 5, max: 600, noNaN: true }),
        fc.array(line, { maxLength: 8 }),
        fc.option(fc.record({ width: fc.integer({ min: 1, max: 500 }), height: fc.integer({ min: 1, max: 500 }) })),
        (width, height, lines, image) => {
          const layout = layoutStamp({ width, height, lines, image }, mono);
          let previousBottom = Infinity;
          for (const [i, placed] of layout.lines.entries()) {
            expect(placed.text).toBe(lines[i]?.text);
            expect(placed.size).toBeGreaterThan(0);
            expect(placed.size).toBeLessThanOrEqual(lines[i]?.size as number);
            expect(placed.x).toBeGreaterThanOrEqual(0);
            expect(placed.x + mono.widthOfTextAtSize(placed.text, placed.size)).toBeLessThanOrEqual(width + 1e-9);
            expect(placed.y + placed.size * mono.ascent).toBeLessThanOrEqual(Math.min(height, previousBottom) + 1e-9);
            expect(placed.y - placed.size * mono.descent).toBeGreaterThanOrEqual(-1e-9);
            previousBottom = placed.y - placed.size * mono.descent;
          }
          if (layout.image) {
            expect(layout.image.x).toBeGreaterThanOrEqual(0);
            expect(layout.image.y).toBeGreaterThanOrEqual(0);
            expect(layout.image.x + layout.image.width).toBeLessThanOrEqual(width + 1e-9);
            expect(layout.image.y + layout.image.height).toBeLessThanOrEqual(height + 1e-9);
            const aspect = (image?.width as number) / (image?.height as number);
            expect(layout.image.width / layout.image.height).toBeCloseTo(aspect, 6);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
