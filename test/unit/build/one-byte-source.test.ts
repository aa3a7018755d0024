import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types
import { oneByteSource } from '../../../build/one-byte-source.mjs';

const rewrite = oneByteSource as (code: string, name?: string) => string;
const aboveLatin1 = /[^\u0000-\u00ff]/u;

describe('oneByteSource (a bundle V8 holds as a one-byte string)', () => {
  it('writes the characters above U+00FF of comments in ASCII, keeps Latin-1 and the code', () => {
    const code = '/** §7.3 — the caller’s “x” ⋅ y … */\nconst a = "\\u2014"; // a ≤ b → c\nmodule.exports = { a, re: /\\u2019/ };\n';
    const out = rewrite(code);
    expect(out).not.toMatch(aboveLatin1);
    expect(out).toContain("/** §7.3 -- the caller's \"x\" * y ... */");
    expect(out).toContain('// a <= b -> c');
    expect(out.slice(out.indexOf('const'))).toBe(code.slice(code.indexOf('const')).replace('≤', '<=').replace('→', '->'));
  });

  it('refuses one in code (a regular expression) instead of changing what the code does', () => {
    expect(() => rewrite('// fine — here\nconst re = /—/;\n', 'x.cjs')).toThrow(/x\.cjs: a character above U\+00FF outside a comment, near "const re=\/—\/;/);
  });

  it('leaves a source without such characters as it is', () => {
    const code = 'const s = "§ and ×"; // Latin-1 is one byte already\n';
    expect(rewrite(code)).toBe(code);
  });

  it('the built bundles have none: each is one byte per character in V8', () => {
    for (const name of ['localsign.cjs', 'localsign-main.cjs', 'localsign-vendor.cjs', 'localsign-pdf-worker.cjs', 'localsign-worker.cjs']) {
      expect(readFileSync(new URL(`../../../dist/${name}`, import.meta.url), 'utf8'), name).not.toMatch(aboveLatin1);
    }
  });
});
