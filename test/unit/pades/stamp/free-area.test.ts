import { describe, expect, it } from 'vitest';
import type { Box } from '../../../../src/pades/pdf/content-boxes';
import { boxesOverlap, findFreeArea } from '../../../../src/pades/stamp/free-area';

const A4: Box = { x1: 0, y1: 0, x2: 595, y2: 842 };
const box = (x1: number, y1: number, x2: number, y2: number): Box => ({ x1, y1, x2, y2 });
const stampAt = (x: number, y: number, w = 240, h = 72): Box => box(x, y, x + w, y + h);

describe('findFreeArea', () => {
  it('keeps the design\'s box, the very same object, when it meets nothing', () => {
    const wanted = stampAt(36, 36);
    expect(findFreeArea({ page: A4, obstacles: [box(36, 700, 500, 800)], wanted, margin: 4 })).toBe(wanted);
  });

  it('counts the margin: a box 3 pt from a word is moved when the margin is 4 pt', () => {
    const wanted = stampAt(36, 36);
    const word = box(300, 40, 340, 50); // 24 pt right of the stamp's right edge (276)
    expect(findFreeArea({ page: A4, obstacles: [word], wanted, margin: 4 })).toBe(wanted);
    const close = box(279, 40, 320, 50); // 3 pt away
    const moved = findFreeArea({ page: A4, obstacles: [close], wanted, margin: 4 })!;
    expect(moved).not.toBe(wanted);
    expect(boxesOverlap(moved, box(275, 36, 324, 54))).toBe(false);
  });

  it('moves up past a footer to the nearest free place', () => {
    // A footer line across the page at y 30..42: the stamp goes right above it, margin kept.
    const found = findFreeArea({ page: A4, obstacles: [box(56, 30, 540, 42)], wanted: stampAt(36, 36), margin: 4 });
    expect(found).toEqual(stampAt(36, 46));
  });

  it('goes sideways when that is nearer than up', () => {
    // A narrow column of text left of x 100 from y 0 to 400: sliding right by 68 pt beats going up 300.
    const found = findFreeArea({ page: A4, obstacles: [box(20, 0, 100, 400)], wanted: stampAt(36, 36), margin: 4 });
    expect(found).toEqual(stampAt(104, 36));
  });

  it('stays inside the page box, also when the page does not start at the origin', () => {
    const page = box(100, 100, 500, 500);
    const found = findFreeArea({ page, obstacles: [box(100, 100, 500, 300)], wanted: stampAt(80, 80, 100, 50), margin: 2 })!;
    expect(found.x1).toBeGreaterThanOrEqual(100);
    expect(found.y1).toBeGreaterThanOrEqual(302);
    expect(found.x2).toBeLessThanOrEqual(500);
    expect(found.y2).toBeLessThanOrEqual(500);
    expect(found).toEqual(box(100, 302, 200, 352));
  });

  it('finds a gap between obstacles exactly as wide as the stamp plus margins', () => {
    const obstacles = [box(0, 0, 595, 400), box(0, 500, 595, 842), box(0, 400, 200, 500), box(308, 400, 595, 500)];
    // The gap is x 200..308, y 400..500: 100 x 92 with 4 pt margins around it.
    expect(findFreeArea({ page: A4, obstacles, wanted: stampAt(36, 36, 100, 92), margin: 4 })).toEqual(box(204, 404, 304, 496));
    expect(findFreeArea({ page: A4, obstacles, wanted: stampAt(36, 36, 101, 92), margin: 4 })).toBeNull();
  });

  it('returns null for a full page and for a stamp larger than the page', () => {
    expect(findFreeArea({ page: A4, obstacles: [box(10, 10, 585, 832)], wanted: stampAt(36, 36), margin: 4 })).toBeNull();
    expect(findFreeArea({ page: A4, obstacles: [box(0, 0, 1, 1)], wanted: stampAt(0, 0, 600, 50), margin: 4 })).toBeNull();
  });

  it('never answers a box that meets an obstacle, on a page of many scattered words', () => {
    // A pseudo-random page of 400 words (fixed seed): whatever is found keeps the margin.
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const words = Array.from({ length: 400 }, () => {
      const x = rand() * 560;
      const y = rand() * 820;
      return box(x, y, x + 10 + rand() * 40, y + 10);
    });
    for (const [w, h] of [[60, 20], [120, 30], [30, 30]] as const) {
      const found = findFreeArea({ page: A4, obstacles: words, wanted: stampAt(36, 36, w, h), margin: 4 });
      expect(found).not.toBeNull();
      const grown = words.map((b) => box(b.x1 - 4, b.y1 - 4, b.x2 + 4, b.y2 + 4));
      expect(grown.filter((b) => boxesOverlap(b, found!))).toEqual([]);
    }
  });

  it('works on a huge page with a coarser grid, still never over an obstacle', () => {
    const page = box(0, 0, 14_400, 14_400);
    const wall = box(0, 0, 14_400, 7_000);
    const found = findFreeArea({ page, obstacles: [wall], wanted: stampAt(36, 36), margin: 4 })!;
    expect(found.y1).toBeGreaterThanOrEqual(7_004);
    expect(found.y1).toBeLessThan(7_004 + 15); // within a cell (14.4 pt) of the nearest place
    expect(found.x1).toBe(36);
  });
});
