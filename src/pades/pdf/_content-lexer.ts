/**
 * Tokens of a content stream (ISO 32000-1 §7.8.2: operands in postfix notation followed by an
 * operator), enough for content-boxes.ts to follow what a page paints. Operands are plain values:
 * numbers, names (without the slash), strings (raw bytes), arrays and dictionaries; an inline
 * image's data (§8.9.7, between ID and EI) is skipped. Never throws: a malformed stream ends the
 * walk early, and the caller treats what it saw so far as the page's content.
 */
import { decodeHexDigits } from './hex';

export type Operand = number | boolean | null | { name: string } | Uint8Array | Operand[] | { dict: Map<string, Operand> };

export interface ContentOperation {
  operator: string;
  operands: Operand[];
}

/** Byte classes of §7.2.2: 0 regular, 1 white-space (Table 1), 2 delimiter (Table 2, and %). */
const CLASS = new Uint8Array(256);
for (const b of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[b] = 1;
for (const b of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS[b] = 2;

function isRegular(b: number | undefined): boolean {
  return b !== undefined && CLASS[b] === 0;
}

function isSpace(b: number | undefined): boolean {
  return b !== undefined && CLASS[b] === 1;
}

const ESCAPES: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c };

class Lexer {
  pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  private skipSpace(): void {
    const b = this.bytes;
    while (this.pos < b.length) {
      if (isSpace(b[this.pos])) this.pos++;
      else if (b[this.pos] === 0x25) while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
      else break;
    }
  }

  /** A run of regular bytes (§7.2.2), found first and sliced once: a content stream is the document's to size. */
  private regularRun(): string {
    const start = this.pos;
    while (isRegular(this.bytes[this.pos])) this.pos++;
    return start === this.pos ? '' : Buffer.from(this.bytes.buffer, this.bytes.byteOffset + start, this.pos - start).toString('latin1');
  }

  /** §7.3.4.2 literal string: balanced parentheses, backslash escapes, octal codes. Its end is found first, then it is decoded into one buffer. */
  private literalString(): Uint8Array {
    const b = this.bytes;
    const start = ++this.pos;
    let depth = 1;
    let end = start;
    for (; end < b.length; end++) {
      const c = b[end];
      if (c === 0x5c) end++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) break;
    }
    end = Math.min(end, b.length);
    const out = new Uint8Array(end - start);
    let n = 0;
    let p = start;
    while (p < end) {
      const c = b[p++]!;
      if (c !== 0x5c) {
        out[n++] = c;
        continue;
      }
      const e = b[p++];
      if (e === undefined || p > end) break;
      if (e >= 0x30 && e <= 0x37) {
        let v = e - 0x30;
        for (let i = 0; i < 2 && p < end && b[p]! >= 0x30 && b[p]! <= 0x37; i++) v = v * 8 + (b[p++]! - 0x30);
        out[n++] = v & 0xff;
      } else if (e === 0x0d) {
        if (b[p] === 0x0a && p < end) p++;
      } else if (e !== 0x0a) {
        out[n++] = ESCAPES[e] ?? e;
      }
    }
    this.pos = end + 1;
    return out.subarray(0, n);
  }

  /** §7.3.4.3 hexadecimal string; other bytes are skipped, an odd final digit is followed by 0. */
  private hexString(): Uint8Array {
    const start = ++this.pos;
    const close = this.bytes.indexOf(0x3e, start);
    const end = close < 0 ? this.bytes.length : close;
    this.pos = end + 1;
    return decodeHexDigits(this.bytes, start, end, true)!;
  }

  /** The next operand, or an operator as a string, or undefined at the end. */
  next(): Operand | string | undefined {
    this.skipSpace();
    const b = this.bytes;
    const c = b[this.pos];
    if (c === undefined) return undefined;
    if (c === 0x2f) {
      this.pos++;
      return { name: this.regularRun() };
    }
    if (c === 0x28) return this.literalString();
    if (c === 0x3c) {
      if (b[this.pos + 1] !== 0x3c) return this.hexString();
      this.pos += 2;
      return this.dictionary();
    }
    if (c === 0x5b) {
      this.pos++;
      const items: Operand[] = [];
      for (;;) {
        const t = this.next();
        if (t === undefined || t === ']') break;
        if (typeof t !== 'string') items.push(t);
      }
      return items;
    }
    if (c === 0x5d || c === 0x3e || c === 0x7b || c === 0x7d || c === 0x29) {
      this.pos++;
      if (c === 0x3e && b[this.pos] === 0x3e) this.pos++;
      return c === 0x5d ? ']' : c === 0x3e ? '>>' : String.fromCharCode(c);
    }
    const word = this.regularRun();
    if (word === '') {
      this.pos++;
      return this.next();
    }
    const first = word.charCodeAt(0);
    // §7.3.3: a number starts with a digit, a sign or a point; anything else is an operator.
    if ((first >= 0x30 && first <= 0x39) || first === 0x2b || first === 0x2d || first === 0x2e) {
      const value = Number(word);
      return Number.isNaN(value) ? 0 : value;
    }
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    return word;
  }

  private dictionary(): { dict: Map<string, Operand> } {
    const dict = new Map<string, Operand>();
    for (;;) {
      const key = this.next();
      if (key === undefined || key === '>>') break;
      if (typeof key !== 'object' || key === null || !('name' in key)) continue;
      const value = this.next();
      if (value === undefined || value === '>>') break;
      if (typeof value !== 'string') dict.set(key.name, value);
    }
    return { dict };
  }

  /** §8.9.7: after ID and one white-space byte, data runs to an EI between white space. */
  skipInlineImageData(): void {
    const b = this.bytes;
    this.pos++;
    while (this.pos < b.length) {
      if (b[this.pos] === 0x45 && b[this.pos + 1] === 0x49 && isSpace(b[this.pos - 1]) && (b[this.pos + 2] === undefined || isSpace(b[this.pos + 2]))) {
        this.pos += 2;
        return;
      }
      this.pos++;
    }
  }
}

/** Calls `visit` for each operation in order; an inline image comes as operator BI with its dictionary. */
export function forEachOperation(bytes: Uint8Array, visit: (op: ContentOperation) => void): void {
  const lexer = new Lexer(bytes);
  let operands: Operand[] = [];
  for (;;) {
    const token = lexer.next();
    if (token === undefined) return;
    if (typeof token !== 'string') {
      operands.push(token);
      if (operands.length > 64) operands = operands.slice(-32); // garbage, not a real operator's operands
      continue;
    }
    if (token === 'BI') {
      const dict = new Map<string, Operand>();
      for (;;) {
        const key = lexer.next();
        if (key === undefined) return;
        if (key === 'ID') break;
        if (typeof key === 'object' && key !== null && 'name' in key) {
          const value = lexer.next();
          if (value === undefined) return;
          if (typeof value !== 'string') dict.set(key.name, value);
        }
      }
      lexer.skipInlineImageData();
      visit({ operator: 'BI', operands: [{ dict }] });
    } else {
      visit({ operator: token, operands });
    }
    operands = [];
  }
}
