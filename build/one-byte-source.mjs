/**
 * A bundle whose source has one character above U+00FF is held by V8 as a two-byte string: twice
 * its size, in every process that loads it, for as long as it runs (V8 keeps a script's source for
 * lazy compilation). esbuild writes strings, templates and identifiers in ASCII (its default
 * charset) but keeps comments as written, and ours and our dependencies' cite "§", "—", "’", "⋅".
 * The vendor bundle's 4.7 MB were 8.9 MiB of every PDF worker's heap (a heap snapshot's largest
 * string). This rewrites those characters in comments only, into ASCII.
 *
 * How it knows a character is in a comment: esbuild is the oracle. With `minifyWhitespace` it drops
 * every comment, so the rewritten bundle must minify to exactly what the original minifies to; a
 * character in a regular expression or anywhere else that is code changes that output, and the build
 * fails naming it instead of changing what the code does.
 */
import { transformSync } from 'esbuild';

/** What comments say with characters above U+00FF, in ASCII; anything else becomes "?". */
const ASCII = new Map([
  ['\u2014', '--'], ['\u2013', '-'], ['\u2212', '-'], ['\u2010', '-'], ['\u2011', '-'],
  ['\u2018', "'"], ['\u2019', "'"], ['\u201c', '"'], ['\u201d', '"'],
  ['\u2026', '...'], ['\u22c5', '*'], ['\u2022', '*'], ['\u2192', '->'], ['\u2190', '<-'], ['\u21d2', '=>'],
  ['\u2264', '<='], ['\u2265', '>='], ['\u2260', '!='], ['\u2248', '~'], ['\u2208', 'in'], ['\u220b', 'contains'],
  ['\u2016', '||'], ['\u2225', '||'], ['\u221a', 'sqrt'], ['\u00a0', ' '],
]);

const ABOVE_LATIN1 = /[^\u0000-\u00ff]/gu;

const withoutComments = (source) => transformSync(source, { minifyWhitespace: true, legalComments: 'none', format: 'cjs', logLevel: 'silent' }).code;

/** `code` with every character above U+00FF in its comments written in ASCII; throws if one is not in a comment. */
export function oneByteSource(code, name = 'bundle') {
  const rewritten = code.replace(ABOVE_LATIN1, (ch) => ASCII.get(ch) ?? '?');
  if (rewritten === code) return code;
  const before = withoutComments(code);
  const after = withoutComments(rewritten);
  if (after !== before) {
    // Where the comment-free outputs first differ is the character that was code.
    let at = 0;
    while (before[at] === after[at]) at += 1;
    throw new Error(`${name}: a character above U+00FF outside a comment, near ${JSON.stringify(before.slice(Math.max(0, at - 40), at + 20))}; escape it in the source`);
  }
  return rewritten;
}
