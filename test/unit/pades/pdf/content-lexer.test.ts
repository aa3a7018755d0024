import { describe, expect, it } from 'vitest';
import { forEachOperation, type ContentOperation } from '../../../../src/pades/pdf/_content-lexer';

const ops = (content: string | Uint8Array): ContentOperation[] => {
  const out: ContentOperation[] = [];
  forEachOperation(typeof content === 'string' ? new Uint8Array(Buffer.from(content, 'latin1')) : content, (op) => out.push(op));
  return out;
};
const text = (b: unknown) => Buffer.from(b as Uint8Array).toString('latin1');

describe('content stream tokens (ISO 32000-1 §7.8.2)', () => {
  it('reads operands and operators', () => {
    expect(ops('q 1 0 0 1 72 700 cm /F1 12 Tf [(A) -250 (B)] TJ Q')).toEqual([
      { operator: 'q', operands: [] },
      { operator: 'cm', operands: [1, 0, 0, 1, 72, 700] },
      { operator: 'Tf', operands: [{ name: 'F1' }, 12] },
      { operator: 'TJ', operands: [[new Uint8Array(Buffer.from('A')), -250, new Uint8Array(Buffer.from('B'))]] },
      { operator: 'Q', operands: [] },
    ]);
  });

  it('decodes literal strings: nesting, escapes, octal, line continuations (§7.3.4.2)', () => {
    const [op] = ops('(a(b)c \\( \\) \\\\ \\n\\t \\101\\60\\0601 x\\\ny\\\r\nz) Tj');
    // \101 is A, \60 and \060 are both 0 (up to three octal digits), then a plain 1.
    expect(text(op!.operands[0])).toBe('a(b)c ( ) \\ \n\t A001 xyz');
  });

  it('decodes hex strings: white space and other bytes skipped, an odd digit followed by 0 (§7.3.4.3)', () => {
    const [a, b] = ops('<48 65\n6C6c6F> Tj <414> Tj');
    expect(text(a!.operands[0])).toBe('Hello');
    expect([...(b!.operands[0] as Uint8Array)]).toEqual([0x41, 0x40]);
  });

  it('reads 20 MB tokens (a literal, a hex string, a word) in linear time', () => {
    const size = 20 * 1024 * 1024;
    const literal = new Uint8Array(size + 5).fill(0x61);
    literal.set(Buffer.from('('), 0);
    literal.set(Buffer.from(') Tj'), size + 1);
    const hex = new Uint8Array(size + 5).fill(0x41);
    hex.set(Buffer.from('<'), 0);
    hex.set(Buffer.from('> Tj'), size + 1);
    const word = new Uint8Array(size).fill(0x7a);
    const t0 = performance.now();
    expect((ops(literal)[0]!.operands[0] as Uint8Array).length).toBe(size);
    expect((ops(hex)[0]!.operands[0] as Uint8Array).length).toBe(size / 2);
    expect(ops(word)[0]!.operator).toHaveLength(size);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
