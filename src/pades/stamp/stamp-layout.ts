/**
 * Where things go inside a stamp box: pure geometry, no PDF objects, so it is tested with plain
 * numbers. Coordinates are in the form XObject's own space: (0,0) is the box's lower-left corner
 * and the box is `width` x `height` points (ISO 32000-1 §8.10.1: the form's /BBox).
 */
import { FIELD_PLACEHOLDERS } from '../../domain/pades';

/** What the layout needs to know about the font; sizes in points, ratios per point of size. */
export interface StampFontMetrics {
  widthOfTextAtSize(text: string, size: number): number;
  /** Ascender above the baseline per point of size (DejaVu Sans: 0.928). */
  ascent: number;
  /** Descender below the baseline per point of size, positive (DejaVu Sans: 0.236). */
  descent: number;
}

export interface StampLayoutInput {
  width: number;
  height: number;
  /** `unfilled`: a line whose placeholders all came out empty, not drawn (domain/pades.ts StampSpec). */
  lines: { text: string; size: number; unfilled?: string[] }[];
  /** Pixel size of the PNG, when there is one. */
  image?: { width: number; height: number } | null;
}

export interface PlacedImage {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedLine {
  text: string;
  /** The size drawn: the requested size, or smaller when the line would not fit the width. */
  size: number;
  /** Start of the baseline. */
  x: number;
  y: number;
}

/**
 * What the layout had to give up on a line, so the result's `warnings` can say it (a stamp never
 * fails silently). `line` counts the design's lines from 1.
 */
export type StampLineAdjustment =
  /** Too wide at the readable size: cut and ended with "…"; `shown` of `total` characters kept. */
  | { kind: 'cut'; line: number; size: number; shown: number; total: number; text: string }
  /** The box is too low for the first line at the readable size: drawn smaller all the same. */
  | { kind: 'below_readable'; line: number; size: number }
  /** No room left in the box (its height, or its width beside the image). */
  | { kind: 'left_out'; line: number }
  /** Every placeholder of the line came out empty: it would read as blank, so it is not drawn. */
  | { kind: 'unfilled'; line: number; names: string[] };

export interface StampLayout {
  border: { x: number; y: number; width: number; height: number; lineWidth: number };
  image: PlacedImage | null;
  lines: PlacedLine[];
  adjustments: StampLineAdjustment[];
}

/**
 * The smallest size a stamp line is shrunk to: below about 6 pt printed text stops being legible
 * (a 1,000-character signer_name once became a hairline). Past it a line is cut instead. A design
 * that asks for a smaller size itself gets that size, never less.
 */
export const MIN_READABLE_SIZE = 6;
/** U+2026, in DejaVu Sans (glyph "ellipsis"), so the embedded subset can draw it. */
export const ELLIPSIS = '\u2026';

/** Thin border; stroked inside the box so half of it is not clipped away by /BBox. */
export const BORDER_WIDTH = 0.75;
/** Share of the inner width the image may take when there is text beside it. */
const IMAGE_SHARE_WITH_TEXT = 0.4;
/** Extra room between lines, as a share of the line's size (1.164 + 0.1 is close to the usual 1.2-1.3). */
const LINE_GAP = 0.1;

function paddingFor(width: number, height: number): number {
  return Math.min(4, Math.max(1, Math.min(width, height) * 0.06));
}

/** Sizes are floored to 1/100 pt so a shrunk line's width never rounds up past the box. */
function floorSize(size: number): number {
  return Math.floor(size * 100) / 100;
}

/**
 * The image sits on the left, as tall as the box allows, keeping its aspect ratio and taking at
 * most 40% of the width when there is text (all of it when there is none); the text goes to its
 * right. Side by side keeps the text readable, which a background image would not guarantee.
 */
function placeImage(
  input: StampLayoutInput,
  pad: number,
): PlacedImage | null {
  const img = input.image;
  if (!img || img.width <= 0 || img.height <= 0) return null;
  const innerW = input.width - 2 * pad;
  const innerH = input.height - 2 * pad;
  if (innerW <= 0 || innerH <= 0) return null;
  const withText = input.lines.some((l) => !l.unfilled);
  const maxW = withText ? innerW * IMAGE_SHARE_WITH_TEXT : innerW;
  const scale = Math.min(maxW / img.width, innerH / img.height);
  const width = img.width * scale;
  const height = img.height * scale;
  const x = withText ? pad : (input.width - width) / 2;
  return { x, y: (input.height - height) / 2, width, height };
}

/**
 * Graphemes, so a cut never splits an accent from its letter or a surrogate pair. Made on the
 * first cut, not when the module loads: making one reads ICU's break rules, about 9 ms in a fresh
 * process (a CPU profile of a PDF worker's start, on a 2-core machine), and most stamps are never
 * cut.
 */
let graphemes: Intl.Segmenter | null = null;

/**
 * The longest start of `text` that fits `room` with "…" after it (trailing blanks dropped), or
 * null when not even "…" fits. Widths grow with the kept count, so a binary search finds it.
 */
function cutToWidth(text: string, size: number, room: number, font: StampFontMetrics): string | null {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const parts = Array.from(graphemes.segment(text), (s) => s.segment);
  const cut = (n: number) => parts.slice(0, n).join('').trimEnd() + ELLIPSIS;
  const fits = (n: number) => font.widthOfTextAtSize(cut(n), size) <= room;
  if (!fits(0)) return null;
  let lo = 0;
  let hi = parts.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}

const hasText = (text: string) => text.trim().length > 0;

/**
 * Lines go top to bottom at their own sizes. A line wider than the room left is shrunk to fit
 * it, down to MIN_READABLE_SIZE; still too wide there, it is cut with "…". A line that no longer
 * fits the height ends the text (it and every later line are left out), except the first, which
 * is shrunk to the height so a tiny box still shows something. Each cut, each line left out and
 * a first line below the readable size is listed in `adjustments`.
 */
export function layoutStamp(input: StampLayoutInput, font: StampFontMetrics): StampLayout {
  const { width, height } = input;
  const pad = paddingFor(width, height);
  const half = BORDER_WIDTH / 2;
  const border = {
    x: half,
    y: half,
    width: Math.max(0, width - BORDER_WIDTH),
    height: Math.max(0, height - BORDER_WIDTH),
    lineWidth: BORDER_WIDTH,
  };
  const image = placeImage(input, pad);
  const textX = image ? image.x + image.width + pad : pad;
  const textW = width - textX - pad;
  const lines: PlacedLine[] = [];
  const adjustments: StampLineAdjustment[] = [];
  const leaveOut = (from: number) => {
    input.lines.forEach((line, i) => {
      if (i >= from && !line.unfilled && hasText(line.text)) adjustments.push({ kind: 'left_out', line: i + 1 });
    });
  };
  const lineHeight = font.ascent + font.descent;
  let top = height - pad;
  input.lines.forEach((line, i) => {
    if (line.unfilled) adjustments.push({ kind: 'unfilled', line: i + 1, names: line.unfilled });
  });
  if (textW <= 0) {
    leaveOut(0);
    return { border, image, lines, adjustments };
  }
  for (const [i, line] of input.lines.entries()) {
    if (line.unfilled) continue;
    let size = line.size;
    let text = line.text;
    if (lines.length === 0 && size * lineHeight > top - pad) {
      size = floorSize(Math.min(size, (top - pad) / lineHeight));
    }
    const readable = Math.min(size, MIN_READABLE_SIZE);
    // Blanks too wide for the box carry nothing to lose: they are drawn as nothing.
    if (!hasText(text)) text = '';
    const textWidth = font.widthOfTextAtSize(text, size);
    let cut: StampLineAdjustment | null = null;
    if (textWidth > textW) {
      const fitted = floorSize((size * textW) / textWidth);
      if (fitted >= readable) {
        size = fitted;
      } else {
        size = readable;
        const shortened = cutToWidth(text, size, textW, font);
        if (shortened === null) {
          // Not even "…" fits beside the image: this line is lost, a later smaller one may fit.
          adjustments.push({ kind: 'left_out', line: i + 1 });
          continue;
        }
        cut = { kind: 'cut', line: i + 1, size, shown: [...shortened].length - 1, total: [...text].length, text: shortened };
        text = shortened;
      }
    }
    const y = top - size * font.ascent;
    if (size <= 0 || y - size * font.descent < pad - 1e-9) {
      leaveOut(i);
      break;
    }
    if (cut) adjustments.push(cut);
    if (size < Math.min(line.size, MIN_READABLE_SIZE) && hasText(text)) adjustments.push({ kind: 'below_readable', line: i + 1, size });
    lines.push({ text, size, x: textX, y });
    top = y - size * font.descent - size * LINE_GAP;
  }
  return { border, image, lines, adjustments };
}

/** Where a placeholder's value comes from: a request field, or a design variable. */
const valueSource = (name: string) => ((FIELD_PLACEHOLDERS as readonly string[]).includes(name) ? name : `variables.${name}`);

/** Sizes as the warnings print them: 6, 4.25. */
const pt = (size: number) => `${Number(size.toFixed(2))} pt`;
/** A cut line quoted in its warning, itself kept short. */
const quoted = (text: string) => JSON.stringify([...text].length > 60 ? [...text].slice(0, 59).join('') + ELLIPSIS : text);

/**
 * The result's `warnings` for what the layout gave up (CONTRACT: a stamp line shortened to fit at
 * a readable size is named in `warnings`), one per line, each naming the design's line by number.
 */
export function describeAdjustments(adjustments: StampLineAdjustment[]): string[] {
  const warnings: string[] = [];
  const leftOut = adjustments.filter((a) => a.kind === 'left_out').map((a) => a.line);
  for (const a of adjustments) {
    if (a.kind === 'cut') {
      warnings.push(`stamp line ${a.line} was shortened to fit the stamp's width at ${pt(a.size)}: ${a.shown} of its ${a.total} characters are shown, cut with "${ELLIPSIS}" (${quoted(a.text)})`);
    } else if (a.kind === 'unfilled') {
      const names = a.names.map((n) => `{{${n}}}`);
      const which = names.length === 1 ? `its placeholder ${names[0]} has no value` : `none of its placeholders ${names.join(', ')} has a value`;
      warnings.push(`stamp line ${a.line} is not drawn: ${which} in this request (give ${a.names.map(valueSource).join(' or ')}), and the line would read as blank`);
    } else if (a.kind === 'below_readable') {
      warnings.push(`stamp line ${a.line} is drawn at ${pt(a.size)}, below the readable ${pt(MIN_READABLE_SIZE)}: the stamp's box is too low for it`);
    }
  }
  if (leftOut.length > 0) {
    const which = leftOut.length === 1 ? `stamp line ${leftOut[0]} was` : `stamp lines ${leftOut.slice(0, -1).join(', ')} and ${leftOut.at(-1)} were`;
    warnings.push(`${which} left out: the stamp's box has no room for ${leftOut.length === 1 ? 'it' : 'them'}`);
  }
  return warnings;
}
