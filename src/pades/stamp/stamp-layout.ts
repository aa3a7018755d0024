/**
 * Where things go inside a stamp box: pure geometry, no PDF objects, so it is tested with plain
 * numbers. Coordinates are in the form XObject's own space: (0,0) is the box's lower-left corner
 * and the box is `width` x `height` points (ISO 32000-1 §8.10.1: the form's /BBox).
 */

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
  lines: { text: string; size: number }[];
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

export interface StampLayout {
  border: { x: number; y: number; width: number; height: number; lineWidth: number };
  image: PlacedImage | null;
  lines: PlacedLine[];
}

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
  const maxW = input.lines.length > 0 ? innerW * IMAGE_SHARE_WITH_TEXT : innerW;
  const scale = Math.min(maxW / img.width, innerH / img.height);
  const width = img.width * scale;
  const height = img.height * scale;
  const x = input.lines.length > 0 ? pad : (input.width - width) / 2;
  return { x, y: (input.height - height) / 2, width, height };
}

/**
 * Lines go top to bottom at their own sizes. A line wider than the room left is shrunk to fit
 * it; a line that no longer fits the height ends the text (it and every later line are dropped),
 * except the first, which is shrunk to the height so a tiny box still shows something.
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
  const lineHeight = font.ascent + font.descent;
  let top = height - pad;
  if (textW <= 0) return { border, image, lines };
  for (const line of input.lines) {
    let size = line.size;
    const textWidth = font.widthOfTextAtSize(line.text, size);
    if (textWidth > textW) size = floorSize((size * textW) / textWidth);
    if (lines.length === 0 && size * lineHeight > top - pad) {
      size = floorSize(Math.min(size, (top - pad) / lineHeight));
    }
    const y = top - size * font.ascent;
    if (size <= 0 || y - size * font.descent < pad - 1e-9) break;
    lines.push({ text: line.text, size, x: textX, y });
    top = y - size * font.descent - size * LINE_GAP;
  }
  return { border, image, lines };
}
