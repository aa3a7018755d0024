// fontkit's UMD build carries a Brotli decoder for WOFF2 fonts and, as it loads, decompresses the
// decoder's 120 KB dictionary: 31 ms of the PDF worker's 145 ms engine load (a CPU profile of a
// worker started alone, on a 2-core machine), on the way to the first signature after a start.
// localsign never reads a WOFF2 font (the stamp font is a TrueType file), so the dictionary is
// made on its first use instead: the same value, read through a getter that replaces itself.

/** The statement in @pdf-lib/fontkit 1.1.1's dist/fontkit.umd.js that builds the dictionary. */
const EAGER = '\tdictionary.init(BrotliDecompressBuffer);\n';
const LAZY =
  "\tObject.defineProperty(dictionary, 'dictionary', { configurable: true, enumerable: true, get: function () {\n" +
  // A plain property again first: init assigns to it.
  "\t  Object.defineProperty(dictionary, 'dictionary', { configurable: true, enumerable: true, writable: true, value: undefined });\n" +
  '\t  dictionary.init(BrotliDecompressBuffer);\n' +
  '\t  return dictionary.dictionary;\n' +
  '\t} });\n';

/**
 * `source` with the dictionary made on first use. Throws unless the statement is there exactly
 * once: another fontkit build is bundled as it is only after this is looked at again.
 */
export function lazyBrotliDictionary(source) {
  const at = source.indexOf(EAGER);
  if (at < 0 || source.indexOf(EAGER, at + 1) >= 0) {
    throw new Error('fontkit.umd.js no longer builds its Brotli dictionary in one known statement: check build/vendor/fontkit-lazy-brotli.mjs against the new fontkit');
  }
  return source.slice(0, at) + LAZY + source.slice(at + EAGER.length);
}

/** The esbuild plugin for the vendor bundle. */
export const fontkitLazyBrotli = {
  name: 'fontkit-lazy-brotli',
  setup(b) {
    b.onLoad({ filter: /[\\/]@pdf-lib[\\/]fontkit[\\/]dist[\\/]fontkit\.umd\.js$/ }, async (a) => {
      const { readFile } = await import('node:fs/promises');
      return { contents: lazyBrotliDictionary(await readFile(a.path, 'utf8')), loader: 'js' };
    });
  },
};
