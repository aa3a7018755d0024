import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types
import { lazyBrotliDictionary } from '../../../build/vendor/fontkit-lazy-brotli.mjs';

const lazy = lazyBrotliDictionary as (source: string) => string;
const require = createRequire(import.meta.url);

/** The shape of fontkit's dictionary module and its load-time call, as in dist/fontkit.umd.js. */
const MODULE = [
  'var made = 0;',
  'var BrotliDecompressBuffer = function () { made += 1; return new Uint8Array([7, 8, 9]); };',
  'var dictionary = {};',
  'dictionary.init = function (decompress) { dictionary.dictionary = decompress(); };',
  '\tdictionary.init(BrotliDecompressBuffer);\n',
  'return { dictionary: dictionary, made: function () { return made; } };',
].join('\n');

describe('fontkit with its Brotli dictionary made on first use (build/vendor/fontkit-lazy-brotli.mjs)', () => {
  it('makes the dictionary on its first read, once, with the value the eager load made', () => {
    const eager = new Function(MODULE)() as { dictionary: { dictionary: Uint8Array }; made(): number };
    expect(eager.made()).toBe(1);
    const later = new Function(lazy(MODULE))() as typeof eager;
    expect(later.made()).toBe(0);
    expect([...later.dictionary.dictionary]).toEqual([...eager.dictionary.dictionary]);
    expect(later.dictionary.dictionary).toBe(later.dictionary.dictionary);
    expect(later.made()).toBe(1);
  });

  it('refuses a fontkit whose load no longer has the statement, or has it twice', () => {
    expect(() => lazy('var dictionary = {};\n')).toThrow(/no longer builds its Brotli dictionary/);
    expect(() => lazy(MODULE + MODULE)).toThrow(/no longer builds its Brotli dictionary/);
  });

  it('applies to the fontkit this project installs, which still reads the stamp font', () => {
    const path = require.resolve('@pdf-lib/fontkit/dist/fontkit.umd.js');
    const mod = { exports: {} as { create(bytes: Uint8Array): { unitsPerEm: number; layout(text: string): { glyphs: unknown[] } } } };
    new Function('module', 'exports', 'require', lazy(readFileSync(path, 'utf8')))(mod, mod.exports, require);
    const font = mod.exports.create(new Uint8Array(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'))));
    expect(font.unitsPerEm).toBe(2048);
    expect(font.layout('Signé').glyphs).toHaveLength(5);
  });
});
