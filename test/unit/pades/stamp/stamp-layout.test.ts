import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeAdjustments, layoutStamp, MIN_READABLE_SIZE, type StampFontMetrics } from '../../../../src/pades/stamp/stamp-layout';

/** Every character half an em wide; ascent 0.8, descent 0.2: numbers easy to check by hand. */
const mono: StampFontMetrics = {
  widthOfTextAtSize: (text, size) => [...text].length * size * 0.5,
  ascent: 0.8,
  descent: 0.2,
};

describe('layoutStamp', () => {
  it('puts lines top to bottom and shrinks a long one to the width, down to 6 pt', () => {
    // padding = 6% of the smaller side (60) = 3.6; text width 200 - 7.2 = 192.8
    const layout = layoutStamp(
      { width: 200, height: 60, lines: [{ text: 'abc', size: 10 }, { text: 'x'.repeat(50), size: 10 }] },
      mono,
    );
    expect(layout.border).toEqual({ x: 0.375, y: 0.375, width: 199.25, height: 59.25, lineWidth: 0.75 });
    expect(layout.image).toBeNull();
    expect(layout.lines).toHaveLength(2);
    expect(layout.lines[0]).toEqual({ text: 'abc', size: 10, x: expect.closeTo(3.6, 9), y: expect.closeTo(48.4, 9) });
    // 10 * 192.8 / 250 = 7.712, floored to 7.71; baseline 48.4 - 2 (descent) - 1 (gap) - 6.168 (ascent)
    expect(layout.lines[1]).toEqual({ text: 'x'.repeat(50), size: 7.71, x: expect.closeTo(3.6, 9), y: expect.closeTo(39.232, 9) });
    expect(layout.adjustments).toEqual([]);
  });

  it('cuts a line with "…" at 6 pt when even 6 pt is too wide, and says which line', () => {
    // 100 x at 10 pt would need 3.856 pt; at 6 pt each x is 3 wide: 63 x + "…" = 192 <= 192.8
    const layout = layoutStamp(
      { width: 200, height: 60, lines: [{ text: 'abc', size: 10 }, { text: 'x'.repeat(100), size: 10 }] },
      mono,
    );
    expect(layout.lines[1]).toEqual({ text: `${'x'.repeat(63)}…`, size: MIN_READABLE_SIZE, x: expect.closeTo(3.6, 9), y: expect.closeTo(40.6, 9) });
    expect(layout.adjustments).toEqual([{ kind: 'cut', line: 2, size: 6, shown: 63, total: 100, text: `${'x'.repeat(63)}…` }]);
    expect(describeAdjustments(layout.adjustments)).toEqual([
      `stamp line 2 was shortened to fit the stamp's width at 6 pt: 63 of its 100 characters are shown, cut with "…" ("${'x'.repeat(59)}…")`,
    ]);
  });

  it('cuts a 1,000-character signer name (the documented maximum) to a readable line', () => {
    const name = 'Ä'.repeat(1000);
    const layout = layoutStamp({ width: 180, height: 40, lines: [{ text: 'Signed by', size: 8 }, { text: `Name: ${name}`, size: 8 }, { text: 'Date', size: 8 }] }, mono);
    const [, cut] = layout.lines;
    expect(cut?.size).toBe(6);
    expect(cut?.text.startsWith('Name: ÄÄÄ')).toBe(true);
    expect(cut?.text.endsWith('…')).toBe(true);
    expect(mono.widthOfTextAtSize(cut!.text, 6)).toBeLessThanOrEqual(180 - 2 * 2.4);
    expect(layout.lines.map((l) => l.text)).toContain('Date');
    expect(layout.adjustments).toEqual([expect.objectContaining({ kind: 'cut', line: 2, total: 1006 })]);
  });

  it('never cuts inside a grapheme, and drops blanks before the "…"', () => {
    // "e" + combining acute is one grapheme; padding 1.008, room 14.784: four characters at 6 pt
    const text = 'ab e\u0301e\u0301e\u0301e\u0301';
    const layout = layoutStamp({ width: 14.4 + 2.4, height: 20, lines: [{ text, size: 6 }] }, mono);
    // 'ab e\u0301' is 5 code points = 15 wide with "…": too wide; 'ab' + "…" (the blank dropped) fits
    expect(layout.lines[0]?.text).toBe('ab…');
  });

  it('does not draw a line whose placeholders all came out empty, takes no room for it, and says which and why', () => {
    const layout = layoutStamp(
      {
        width: 200,
        height: 60,
        lines: [
          { text: 'Digitally signed by ', size: 10, unfilled: ['signer_name'] },
          { text: 'Date: 2026-11-28 10:00 UTC', size: 8 },
          { text: ' · ', size: 8, unfilled: ['reference', 'approval_id'] },
          { text: 'Reason: Approval', size: 8 },
        ],
      },
      mono,
    );
    expect(layout.lines.map((l) => l.text)).toEqual(['Date: 2026-11-28 10:00 UTC', 'Reason: Approval']);
    // The first drawn line starts at the top, where the left-out one would have been.
    expect(layout.lines[0]?.y).toBeCloseTo(60 - 3.6 - 8 * 0.8, 9);
    expect(describeAdjustments(layout.adjustments)).toEqual([
      'stamp line 1 is not drawn: its placeholder {{signer_name}} has no value in this request (give signer_name), and the line would read as blank',
      'stamp line 3 is not drawn: none of its placeholders {{reference}}, {{approval_id}} has a value in this request (give variables.reference or variables.approval_id), and the line would read as blank',
    ]);
  });

  it('centres the image as for an image-only stamp when every line is left unfilled', () => {
    const layout = layoutStamp({ width: 200, height: 60, lines: [{ text: 'Location: ', size: 8, unfilled: ['location'] }], image: { width: 10, height: 10 } }, mono);
    expect(layout.lines).toEqual([]);
    expect(layout.image?.x).toBeCloseTo((200 - layout.image!.width) / 2, 9);
  });

  it('keeps a size the design asked below 6 pt and cuts there instead of shrinking further', () => {
    const layout = layoutStamp({ width: 100, height: 30, lines: [{ text: 'y'.repeat(100), size: 4 }] }, mono);
    expect(layout.lines[0]?.size).toBe(4);
    expect(layout.lines[0]?.text.endsWith('…')).toBe(true);
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
    expect(describeAdjustments(layout.adjustments)).toEqual(["stamp lines 3 and 4 were left out: the stamp's box has no room for them"]);
  });

  it('says so when the text has no room beside the image', () => {
    // 6 pt wide: padding 1, the image 1.6, text room 1.4 < the 3 of "…" at 6 pt
    const layout = layoutStamp({ width: 6, height: 40, lines: [{ text: 'a', size: 10 }, { text: ' ', size: 10 }], image: { width: 10, height: 10 } }, mono);
    expect(layout.lines.map((l) => l.text)).toEqual(['']);
    expect(describeAdjustments(layout.adjustments)).toEqual(["stamp line 1 was left out: the stamp's box has no room for it"]);
  });

  it('shrinks a first line taller than the box to its height', () => {
    // padding 1 (the minimum); room 10 - 2 = 8 pt for ascent + descent
    const layout = layoutStamp({ width: 100, height: 10, lines: [{ text: 'Hi', size: 20 }] }, mono);
    expect(layout.lines).toEqual([{ text: 'Hi', size: 8, x: 1, y: expect.closeTo(2.6, 9) }]);
    expect(layout.adjustments).toEqual([]);
    // A box too low for 6 pt still shows the first line, and says it is below the readable size.
    const low = layoutStamp({ width: 100, height: 6, lines: [{ text: 'Hi', size: 20 }] }, mono);
    expect(low.lines).toEqual([{ text: 'Hi', size: 4, x: 1, y: expect.closeTo(1.8, 9) }]);
    expect(describeAdjustments(low.adjustments)).toEqual(["stamp line 1 is drawn at 4 pt, below the readable 6 pt: the stamp's box is too low for it"]);
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

  it('keeps every drawn line inside the padded box, at or below its requested size and at 6 pt or its own size, and names every change', () => {
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
          // Placed lines keep the design's order; a line left out for its width is skipped.
          const leftOut = new Set(layout.adjustments.filter((a) => a.kind === 'left_out').map((a) => a.line - 1));
          const kept = lines.map((l, i) => ({ ...l, i })).filter((l) => !leftOut.has(l.i));
          for (const [k, placed] of layout.lines.entries()) {
            const asked = kept[k]!;
            const cut = layout.adjustments.find((a) => a.kind === 'cut' && a.line === asked.i + 1);
            if (cut) {
              expect(placed.text.endsWith('…')).toBe(true);
              expect(asked.text.startsWith(placed.text.slice(0, -1))).toBe(true);
            } else if (asked.text.trim() !== '') {
              expect(placed.text).toBe(asked.text);
            }
            expect(placed.size).toBeGreaterThan(0);
            expect(placed.size).toBeLessThanOrEqual(asked.size);
            const low = layout.adjustments.some((a) => a.kind === 'below_readable' && a.line === asked.i + 1);
            if (!low && placed.text !== '') expect(placed.size).toBeGreaterThanOrEqual(Math.min(asked.size, MIN_READABLE_SIZE));
            expect(placed.x).toBeGreaterThanOrEqual(0);
            expect(placed.x + mono.widthOfTextAtSize(placed.text, placed.size)).toBeLessThanOrEqual(width + 1e-9);
            expect(placed.y + placed.size * mono.ascent).toBeLessThanOrEqual(Math.min(height, previousBottom) + 1e-9);
            expect(placed.y - placed.size * mono.descent).toBeGreaterThanOrEqual(-1e-9);
            previousBottom = placed.y - placed.size * mono.descent;
          }
          // A line with text that is not drawn is always named.
          const drawn = layout.lines.length;
          const notDrawn = kept.slice(drawn).filter((l) => l.text.trim() !== '');
          for (const l of notDrawn) expect(leftOut.has(l.i)).toBe(true);
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
