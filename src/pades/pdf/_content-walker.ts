/**
 * The operator walker behind content-boxes.ts: one content stream (and the forms it draws) with
 * the graphics state's CTM and clip (ISO 32000-1 §8.4), the text state and matrices (§9.3,
 * §9.4), path construction and painting (§8.5), image and form XObjects (§8.9, §8.10) and
 * inline images (§8.9.7). Collects upper-bound boxes in default user space.
 */
import { PDFDict, PDFName, PDFNumber, PDFRawStream, type PDFObject } from 'pdf-lib';
import { forEachOperation, type ContentOperation, type Operand } from './_content-lexer';
import { readFontMetrics, type FontMetrics } from './_font-metrics';
import type { PdfReader } from './pdf-reader';

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface ContentBox extends Box {
  kind: 'text' | 'image' | 'path';
}

type Matrix = [number, number, number, number, number, number];

/** Bounds on the work one page may cost; past them the page counts as full. */
const MAX_OPERATIONS = 2_000_000;
const MAX_FORM_DEPTH = 16;

/** m1 × m2 in the row-vector convention of §8.3.4. */
function multiply(m1: Matrix, m2: Matrix): Matrix {
  const [a, b, c, d, e, f] = m1;
  const [A, B, C, D, E, F] = m2;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}

/** The axis-aligned box around the rectangle [x1,x2]×[y1,y2] mapped through `m`. */
function transformBox(m: Matrix, x1: number, y1: number, x2: number, y2: number): Box {
  // x' = a·x + c·y + e is monotonic in each of x and y, so the extremes come from the ends.
  const ax1 = m[0] * x1, ax2 = m[0] * x2, cy1 = m[2] * y1, cy2 = m[2] * y2;
  const bx1 = m[1] * x1, bx2 = m[1] * x2, dy1 = m[3] * y1, dy2 = m[3] * y2;
  return {
    x1: Math.min(ax1, ax2) + Math.min(cy1, cy2) + m[4],
    y1: Math.min(bx1, bx2) + Math.min(dy1, dy2) + m[5],
    x2: Math.max(ax1, ax2) + Math.max(cy1, cy2) + m[4],
    y2: Math.max(bx1, bx2) + Math.max(dy1, dy2) + m[5],
  };
}

function intersect(a: Box, b: Box | null): Box | null {
  if (!b) return a;
  const box = { x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1), x2: Math.min(a.x2, b.x2), y2: Math.min(a.y2, b.y2) };
  return box.x1 <= box.x2 && box.y1 <= box.y2 ? box : null;
}

export interface GraphicsState {
  ctm: Matrix;
  clip: Box | null;
  lineWidth: number;
  font: FontMetrics | null;
  fontSize: number;
  charSpacing: number;
  wordSpacing: number;
  horizontalScale: number;
  leading: number;
  rise: number;
}

const nums = (ops: Operand[]): number[] => ops.map((o) => (typeof o === 'number' ? o : 0));

/** Pages and forms share one walker; the result collects every box and the budget. */
export class Walker {
  readonly boxes: ContentBox[] = [];
  operations = 0;
  unreadable = false;
  private readonly fonts = new Map<PDFObject, FontMetrics>();

  constructor(private readonly reader: PdfReader) {}

  private add(kind: ContentBox['kind'], box: Box | null): void {
    if (box && Number.isFinite(box.x1 + box.y1 + box.x2 + box.y2)) this.boxes.push({ kind, x1: box.x1, y1: box.y1, x2: box.x2, y2: box.y2 });
  }

  private fontMetrics(resources: PDFDict | undefined, name: string): FontMetrics {
    const fonts = resources && this.reader.getDict(resources, 'Font');
    const entry = fonts?.get(PDFName.of(name));
    const key = entry ?? PDFName.of(name);
    let metrics = this.fonts.get(key);
    if (!metrics) {
      metrics = readFontMetrics(this.reader, entry);
      this.fonts.set(key, metrics);
    }
    return metrics;
  }

  /** Text-space extent of one string shown with the current text state, and its total advance. */
  private showString(gs: GraphicsState, bytes: Uint8Array, range: { min: number; max: number; x: number }): void {
    const font = gs.font;
    const per = font?.bytesPerCode ?? 1;
    const th = gs.horizontalScale;
    for (let i = 0; i + per <= bytes.length; i += per) {
      const code = per === 2 ? bytes[i]! * 256 + bytes[i + 1]! : bytes[i]!;
      const glyph = (font ? font.width(code) : 1) * gs.fontSize * th;
      const advance = glyph + (gs.charSpacing + (per === 1 && code === 32 ? gs.wordSpacing : 0)) * th;
      range.min = Math.min(range.min, range.x, range.x + glyph, range.x + advance);
      range.max = Math.max(range.max, range.x, range.x + glyph, range.x + advance);
      range.x += advance;
    }
  }

  /** One text-showing operator: its box, and the text matrix moved past it (§9.4.3, §9.4.4). */
  private showText(gs: GraphicsState, tm: Matrix, items: Operand[]): Matrix {
    if (gs.font?.vertical) return this.showVerticalText(gs, tm, items);
    const range = { min: Infinity, max: -Infinity, x: 0 };
    for (const item of items) {
      if (item instanceof Uint8Array) this.showString(gs, item, range);
      else if (typeof item === 'number') range.x -= (item / 1000) * gs.fontSize * gs.horizontalScale;
    }
    if (range.min <= range.max) {
      const ascent = gs.font?.ascent ?? 1;
      const descent = gs.font?.descent ?? -0.35;
      const ys = [gs.rise + ascent * gs.fontSize, gs.rise + descent * gs.fontSize];
      this.add('text', transformBox(multiply(tm, gs.ctm), range.min, Math.min(...ys), range.max, Math.max(...ys)));
    }
    return multiply([1, 0, 0, 1, range.x, 0], tm);
  }

  /**
   * Vertical writing (§9.7.4.3, a CMap ending in -V): each glyph moves the pen down by its
   * vertical advance (w1, -1000 by default: /DW2 [880 -1000]) and hangs around the pen's line.
   * Taken generously: one em either side of the line and one em past both ends.
   */
  private showVerticalText(gs: GraphicsState, tm: Matrix, items: Operand[]): Matrix {
    const size = Math.abs(gs.fontSize);
    let y = 0;
    let low = 0;
    for (const item of items) {
      if (item instanceof Uint8Array) y += Math.floor(item.length / (gs.font?.bytesPerCode ?? 1)) * (-gs.fontSize + gs.charSpacing);
      else if (typeof item === 'number') y -= (item / 1000) * gs.fontSize;
      low = Math.min(low, y);
    }
    this.add('text', transformBox(multiply(tm, gs.ctm), -size, low - size, size, Math.max(0, y) + size));
    return multiply([1, 0, 0, 1, 0, y], tm);
  }

  /** Walks one content stream with its resources, from the graphics state `start`. */
  walk(content: Uint8Array, resources: PDFDict | undefined, start: GraphicsState, forms: Set<PDFObject>): void {
    const stack: GraphicsState[] = [];
    let gs: GraphicsState = { ...start };
    let tm: Matrix = [1, 0, 0, 1, 0, 0];
    let tlm: Matrix = tm;
    let path: Box | null = null;
    let clipPending = false;
    const point = (x: number, y: number): void => {
      const m = gs.ctm;
      const px = m[0] * x + m[2] * y + m[4];
      const py = m[1] * x + m[3] * y + m[5];
      path = path ? { x1: Math.min(path.x1, px), y1: Math.min(path.y1, py), x2: Math.max(path.x2, px), y2: Math.max(path.y2, py) } : { x1: px, y1: py, x2: px, y2: py };
    };
    const paint = (stroke: boolean): void => {
      if (path) {
        // A stroke reaches half the line width past the path (§8.5.3.2), scaled by the CTM.
        const pad = stroke ? (Math.max(gs.lineWidth, 1) / 2) * Math.sqrt(Math.abs(gs.ctm[0] * gs.ctm[3] - gs.ctm[1] * gs.ctm[2])) : 0;
        this.add('path', intersect({ x1: path.x1 - pad, y1: path.y1 - pad, x2: path.x2 + pad, y2: path.y2 + pad }, gs.clip));
      }
    };
    const endPath = (): void => {
      // W and W* take effect at the end of the path (§8.5.4): the clip shrinks to its box.
      if (clipPending && path) gs.clip = intersect(path, gs.clip) ?? { x1: 0, y1: 0, x2: 0, y2: 0 };
      clipPending = false;
      path = null;
    };
    const newLine = (tx: number, ty: number): void => {
      tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
      tm = tlm;
    };

    forEachOperation(content, ({ operator: op, operands }: ContentOperation) => {
      if (++this.operations > MAX_OPERATIONS) {
        this.unreadable = true;
        return;
      }
      if (this.unreadable) return;
      const n = nums(operands);
      switch (op) {
        case 'q': stack.push({ ...gs }); break;
        case 'Q': gs = stack.pop() ?? gs; break;
        case 'cm': if (n.length === 6) gs.ctm = multiply(n as Matrix, gs.ctm); break;
        case 'w': gs.lineWidth = Math.abs(n[0] ?? 1); break;
        case 'm': case 'l': point(n[0] ?? 0, n[1] ?? 0); break;
        case 'c': point(n[0] ?? 0, n[1] ?? 0); point(n[2] ?? 0, n[3] ?? 0); point(n[4] ?? 0, n[5] ?? 0); break;
        case 'v': case 'y': point(n[0] ?? 0, n[1] ?? 0); point(n[2] ?? 0, n[3] ?? 0); break;
        case 're': {
          const [x = 0, y = 0, w = 0, h = 0] = n;
          point(x, y); point(x + w, y + h); point(x, y + h); point(x + w, y);
          break;
        }
        case 'S': case 's': paint(true); endPath(); break;
        case 'f': case 'F': case 'f*': paint(false); endPath(); break;
        case 'B': case 'B*': case 'b': case 'b*': paint(true); endPath(); break;
        case 'n': endPath(); break;
        case 'W': case 'W*': clipPending = true; break;
        case 'sh': this.add('path', gs.clip); break; // §8.7.4.2: fills the clip (the page at most)
        case 'BT': tm = [1, 0, 0, 1, 0, 0]; tlm = tm; break;
        case 'Tc': gs.charSpacing = n[0] ?? 0; break;
        case 'Tw': gs.wordSpacing = n[0] ?? 0; break;
        case 'Tz': gs.horizontalScale = (n[0] ?? 100) / 100; break;
        case 'TL': gs.leading = n[0] ?? 0; break;
        case 'Ts': gs.rise = n[0] ?? 0; break;
        case 'Tf': {
          const name = operands[0];
          gs.font = this.fontMetrics(resources, typeof name === 'object' && name !== null && 'name' in name ? name.name : '');
          gs.fontSize = n[1] ?? 0;
          break;
        }
        case 'Td': newLine(n[0] ?? 0, n[1] ?? 0); break;
        case 'TD': gs.leading = -(n[1] ?? 0); newLine(n[0] ?? 0, n[1] ?? 0); break;
        case 'Tm': if (n.length === 6) { tlm = n as Matrix; tm = tlm; } break;
        case 'T*': newLine(0, -gs.leading); break;
        case 'Tj': tm = this.showText(gs, tm, operands.slice(0, 1)); break;
        case 'TJ': tm = this.showText(gs, tm, Array.isArray(operands[0]) ? operands[0] : []); break;
        case "'": newLine(0, -gs.leading); tm = this.showText(gs, tm, operands.slice(0, 1)); break;
        case '"':
          gs.wordSpacing = n[0] ?? 0;
          gs.charSpacing = n[1] ?? 0;
          newLine(0, -gs.leading);
          tm = this.showText(gs, tm, operands.slice(2, 3));
          break;
        case 'BI': this.add('image', intersect(transformBox(gs.ctm, 0, 0, 1, 1), gs.clip)); break;
        case 'Do': {
          const name = operands[0];
          if (typeof name === 'object' && name !== null && 'name' in name) this.drawXObject(gs, resources, name.name, forms);
          break;
        }
        default: break;
      }
    });
  }

  private numbers(dict: PDFDict, key: string): number[] | undefined {
    return this.reader.getArray(dict, key)?.asArray().map((v) => {
      const n = this.reader.resolve(v);
      return n instanceof PDFNumber ? n.asNumber() : NaN;
    });
  }

  private drawXObject(gs: GraphicsState, resources: PDFDict | undefined, name: string, forms: Set<PDFObject>): void {
    const xobjects = resources && this.reader.getDict(resources, 'XObject');
    const entry = xobjects?.get(PDFName.of(name));
    const stream = this.reader.resolve(entry);
    if (!(stream instanceof PDFRawStream)) return;
    const subtype = this.reader.get(stream.dict, 'Subtype');
    if (subtype === PDFName.of('Image')) {
      this.add('image', intersect(transformBox(gs.ctm, 0, 0, 1, 1), gs.clip)); // §8.9.4: the unit square
      return;
    }
    if (subtype !== PDFName.of('Form') || !entry || forms.has(entry) || forms.size >= MAX_FORM_DEPTH) return;
    let content: Uint8Array;
    try {
      content = this.reader.decodeStream(stream);
    } catch {
      this.unreadable = true;
      return;
    }
    // §8.10.1: the form paints in its /Matrix × CTM, clipped to its /BBox.
    const matrix = this.numbers(stream.dict, 'Matrix');
    const ctm = matrix?.length === 6 && matrix.every(Number.isFinite) ? multiply(matrix as Matrix, gs.ctm) : gs.ctm;
    const bbox = this.numbers(stream.dict, 'BBox');
    const clip = bbox?.length === 4 && bbox.every(Number.isFinite) ? intersect(transformBox(ctm, bbox[0]!, bbox[1]!, bbox[2]!, bbox[3]!), gs.clip) : gs.clip;
    forms.add(entry);
    this.walk(content, this.reader.getDict(stream.dict, 'Resources') ?? resources, { ...gs, ctm, clip: clip ?? { x1: 0, y1: 0, x2: 0, y2: 0 } }, forms);
    forms.delete(entry);
  }
}
