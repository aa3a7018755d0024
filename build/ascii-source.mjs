/**
 * Every bundle the build writes is ASCII, so that:
 * - V8 holds its source at one byte per character. A single character above U+00FF made the
 *   whole source a two-byte string, in every process that loads it, for as long as it runs (V8
 *   keeps a script's source for lazy compilation): the vendor bundle's 4.7 MB were 8.9 MiB of
 *   every PDF worker's heap (a heap snapshot's largest string);
 * - the launcher reads it as Latin-1, a copy, instead of decoding UTF-8 (build/launcher.cjs
 *   sourceText): 15 ms for the vendor bundle in a fresh process against 5 ms, on a 2-core machine,
 *   and each PDF worker reads it as it starts.
 * esbuild writes strings, templates, regular expressions and identifiers in ASCII (its default
 * charset) but keeps comments as written, and ours and our dependencies' cite "§", "—", "’", "⋅",
 * "¥". This rewrites those characters in comments only.
 *
 * How it knows a character is in a comment: esbuild is the oracle. With `minifyWhitespace` it drops
 * every comment, so the rewritten bundle must minify to exactly what the original minifies to; a
 * character in a regular expression or anywhere else that is code changes that output, and the build
 * fails naming it instead of changing what the code does.
 */
import { transformSync } from 'esbuild';

/** What comments say with characters beyond ASCII, in ASCII; a letter loses its accent; anything else becomes "?". */
const ASCII = new Map([
  ['\u2014', '--'], ['\u2013', '-'], ['\u2212', '-'], ['\u2010', '-'], ['\u2011', '-'],
  ['\u2018', "'"], ['\u2019', "'"], ['\u201c', '"'], ['\u201d', '"'],
  ['\u2026', '...'], ['\u22c5', '*'], ['\u2022', '*'], ['\u2192', '->'], ['\u2190', '<-'], ['\u21d2', '=>'],
  ['\u2264', '<='], ['\u2265', '>='], ['\u2260', '!='], ['\u2248', '~'], ['\u2208', 'in'], ['\u220b', 'contains'],
  ['\u2016', '||'], ['\u2225', '||'], ['\u221a', 'sqrt'], ['\u00a0', ' '],
  ['\u00a7', 'S'], ['\u00b6', 'P'], ['\u00d7', 'x'], ['\u00f7', '/'], ['\u00b7', '*'], ['\u00b1', '+-'], ['\u00b0', ' deg'],
  ['\u00b5', 'u'], ['\u00ab', '"'], ['\u00bb', '"'], ['\u00a5', 'Y'], ['\u00a9', '(c)'], ['\u00ae', '(R)'], ['\u00df', 'ss'],
]);

const BEYOND_ASCII = /[^\u0000-\u007f]/gu;

function inAscii(ch) {
  const known = ASCII.get(ch);
  if (known !== undefined) return known;
  const bare = ch.normalize('NFD').replace(/[\u0300-\u036f]/gu, '');
  return /^[\u0000-\u007f]+$/u.test(bare) ? bare : '?';
}

const withoutComments = (source) => transformSync(source, { minifyWhitespace: true, legalComments: 'none', format: 'cjs', logLevel: 'silent' }).code;

/** `code` with every character beyond ASCII in its comments written in ASCII; throws if one is not in a comment. */
export function asciiSource(code, name = 'bundle') {
  const rewritten = code.replace(BEYOND_ASCII, inAscii);
  if (rewritten === code) return code;
  const before = withoutComments(code);
  const after = withoutComments(rewritten);
  if (after !== before) {
    // Where the comment-free outputs first differ is the character that was code.
    let at = 0;
    while (before[at] === after[at]) at += 1;
    throw new Error(`${name}: a character beyond ASCII outside a comment, near ${JSON.stringify(before.slice(Math.max(0, at - 40), at + 20))}; escape it in the source`);
  }
  return rewritten;
}
