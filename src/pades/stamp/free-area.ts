/**
 * The nearest place on a page where a stamp covers nothing ("a signature stamp must not
 * cover what was signed"). Pure geometry in PDF points: the page box, the boxes of what is on
 * the page, and the box the design asked for.
 *
 * The page is cut into square cells (1 pt on ordinary pages, coarser on huge ones so the grid
 * stays near a million cells); a cell any obstacle touches, grown by the margin, is taken. A
 * summed-area table then answers "is this rectangle free?" in constant time, so every position
 * on the grid is tried and the one nearest the design's box wins: the answer is the true nearest
 * free position up to a cell, never one that touches an obstacle (cells round outwards).
 */
import type { Box } from '../pdf';

export interface FreeAreaQuery {
  /** Where the stamp may go: the page's crop box. */
  page: Box;
  /** What it must not cover. */
  obstacles: Box[];
  /** The design's box: kept when it is already free, otherwise the reference for "nearest". */
  wanted: Box;
  /** Room kept clear around every obstacle, in points. */
  margin: number;
}

const TARGET_CELLS = 1_000_000;

/** True when the two boxes share an area (touching edges do not count). */
export function boxesOverlap(a: Box, b: Box): boolean {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}

function grow(box: Box, by: number): Box {
  return { x1: box.x1 - by, y1: box.y1 - by, x2: box.x2 + by, y2: box.y2 + by };
}

class Occupancy {
  readonly cell: number;
  readonly cols: number;
  readonly rows: number;
  /** (cols + 1) × (rows + 1) summed-area table of taken cells. */
  private readonly sums: Float64Array;

  constructor(private readonly page: Box, obstacles: Box[]) {
    const width = page.x2 - page.x1;
    const height = page.y2 - page.y1;
    this.cell = Math.max(1, Math.sqrt((width * height) / TARGET_CELLS));
    this.cols = Math.max(1, Math.ceil(width / this.cell));
    this.rows = Math.max(1, Math.ceil(height / this.cell));
    const stride = this.cols + 1;
    // A 2-D difference array marks each obstacle in O(1); prefix sums then count the marks per cell.
    const marks = new Float64Array(stride * (this.rows + 1));
    for (const box of obstacles) {
      const [c1, c2] = this.span(box.x1 - page.x1, box.x2 - page.x1, this.cols);
      const [r1, r2] = this.span(box.y1 - page.y1, box.y2 - page.y1, this.rows);
      if (c1 > c2 || r1 > r2) continue;
      marks[r1 * stride + c1]! += 1;
      marks[r1 * stride + c2 + 1]! -= 1;
      marks[(r2 + 1) * stride + c1]! -= 1;
      marks[(r2 + 1) * stride + c2 + 1]! += 1;
    }
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        const i = r * stride + c;
        marks[i]! += (c > 0 ? marks[i - 1]! : 0) + (r > 0 ? marks[i - stride]! : 0) - (c > 0 && r > 0 ? marks[i - stride - 1]! : 0);
      }
    }
    this.sums = new Float64Array(stride * (this.rows + 1));
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        const taken = marks[r * stride + c]! > 0 ? 1 : 0;
        const i = (r + 1) * stride + c + 1;
        this.sums[i] = taken + this.sums[i - 1]! + this.sums[i - stride]! - this.sums[i - stride - 1]!;
      }
    }
  }

  /** The cells [from, to] that the interval [a, b] (page-relative points) meets, clamped to the grid. */
  private span(a: number, b: number, count: number): [number, number] {
    return [Math.max(0, Math.floor(a / this.cell)), Math.min(count - 1, Math.ceil(b / this.cell) - 1)];
  }

  /** True when no taken cell meets the rectangle of lower-left (x, y) and size w × h. */
  isFree(x: number, y: number, w: number, h: number): boolean {
    const [c1, c2] = this.span(x - this.page.x1, x + w - this.page.x1, this.cols);
    const [r1, r2] = this.span(y - this.page.y1, y + h - this.page.y1, this.rows);
    if (c1 > c2 || r1 > r2) return true;
    const s = this.cols + 1;
    const taken = this.sums[(r2 + 1) * s + c2 + 1]! - this.sums[r1 * s + c2 + 1]! - this.sums[(r2 + 1) * s + c1]! + this.sums[r1 * s + c1]!;
    return taken === 0;
  }
}

/**
 * Positions along one axis, nearest to `wanted` first: every cell edge that keeps the stamp
 * inside, the far edge itself, and the wanted position when it is inside.
 */
function positions(from: number, to: number, size: number, cell: number, wanted: number): number[] {
  const out: number[] = [];
  for (let i = 0; from + i * cell + size <= to + 1e-9; i++) out.push(from + i * cell);
  if (to - size >= from) out.push(to - size);
  if (wanted >= from && wanted + size <= to) out.push(wanted);
  return out.sort((a, b) => Math.abs(a - wanted) - Math.abs(b - wanted));
}

/**
 * The box of the design's size nearest to `wanted` (distance between lower-left corners) that
 * lies inside the page and meets no obstacle grown by the margin; `wanted` itself when it meets
 * none; null when no such box exists on the page.
 */
export function findFreeArea(query: FreeAreaQuery): Box | null {
  const { page, wanted, margin } = query;
  const obstacles = query.obstacles.map((b) => grow(b, margin));
  if (!obstacles.some((o) => boxesOverlap(o, wanted))) return wanted;
  const w = wanted.x2 - wanted.x1;
  const h = wanted.y2 - wanted.y1;
  if (w > page.x2 - page.x1 || h > page.y2 - page.y1) return null;
  const grid = new Occupancy(page, obstacles);
  const xs = positions(page.x1, page.x2, w, grid.cell, wanted.x1);
  const ys = positions(page.y1, page.y2, h, grid.cell, wanted.y1);
  let best: { x: number; y: number; d: number } | null = null;
  // Both lists run nearest first, so each loop stops as soon as it can only find farther boxes.
  for (const y of ys) {
    const dy = (y - wanted.y1) ** 2;
    if (best && dy >= best.d) break;
    for (const x of xs) {
      const d = dy + (x - wanted.x1) ** 2;
      if (best && d >= best.d) break;
      if (grid.isFree(x, y, w, h)) {
        best = { x, y, d };
        break;
      }
    }
  }
  return best && { x1: best.x, y1: best.y, x2: best.x + w, y2: best.y + h };
}
