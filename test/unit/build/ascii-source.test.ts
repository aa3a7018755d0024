import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types
import { asciiSource } from '../../../build/ascii-source.mjs';

const rewrite = asciiSource as (code: string, name?: string) => string;
const beyondAscii = /[^\u0000-\u007f]/u;

describe('asciiSource (a bundle V8 holds as a one-byte string, read as Latin-1)', () => {
  it('writes the characters beyond ASCII of comments in ASCII and keeps the code', () => {
    const code = '/** §7.3 — the caller’s “x” ⋅ y … café, ¥ */\nconst a = "\\u2014"; // a ≤ b → c\nmodule.exports = { a, re: /\\u2019/ };\n';
    const out = rewrite(code);
    expect(out).not.toMatch(beyondAscii);
    expect(out).toContain("/** S7.3 -- the caller's \"x\" * y ... cafe, Y */");
    expect(out).toContain('// a <= b -> c');
    expect(out.slice(out.indexOf('const'))).toBe(code.slice(code.indexOf('const')).replace('≤', '<=').replace('→', '->'));
  });

  it('writes a character it has no word for as "?"', () => {
    expect(rewrite('// ☃ here\nconst a = 1;\n')).toBe('// ? here\nconst a = 1;\n');
  });

  it('refuses one in code (a regular expression, a string) instead of changing what the code does', () => {
    expect(() => rewrite('// fine — here\nconst re = /—/;\n', 'x.cjs')).toThrow(/x\.cjs: a character beyond ASCII outside a comment, near "const re=\/—\/;/);
    expect(() => rewrite('const s = "§ and ×";\n', 'y.cjs')).toThrow(/y\.cjs: a character beyond ASCII outside a comment/);
  });

  it('leaves an ASCII source as it is', () => {
    const code = 'const s = "\\u00a7"; // escaped already\n';
    expect(rewrite(code)).toBe(code);
  });

  it('the built bundles are ASCII: each is one byte per character in V8, and read as Latin-1', () => {
    for (const name of ['localsign.cjs', 'localsign-main.cjs', 'localsign-vendor.cjs', 'localsign-pdf-worker.cjs', 'localsign-worker.cjs']) {
      expect(readFileSync(new URL(`../../../dist/${name}`, import.meta.url), 'latin1'), name).not.toMatch(beyondAscii);
    }
  });
});
