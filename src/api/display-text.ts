/**
 * Text a reader of the signature sees (the stamp, /Name, /Reason, /Location) must read as what it
 * is. Besides controls and bidirectional overrides (validate.ts), three ways make two texts look
 * alike while they differ, so that a stamp says "Alice" over a /Name that is someone else's:
 * - invisible characters: format characters (Unicode general category Cf: zero-width space and
 *   joiners, word joiner, soft hyphen, BOM, …) and the blank letters UTS #39 lists as default
 *   ignorable (U+034F, the Hangul fillers); the left-to-right and right-to-left marks and the
 *   Arabic letter mark only order neutral characters and stay allowed;
 * - a pile of combining marks on one letter (200 of them draw over the lines around it);
 *   Vietnamese stacks two, so up to MAX_MARKS are allowed;
 * - letters of two scripts in one word, the look-alike attack of UTS #39 §5.1 ("Аlice" with a
 *   Cyrillic А): a word is single-script, or one of the combinations UTS #39's Highly Restrictive
 *   level allows (Latin with Han and Japanese kana, with Han and Bopomofo, with Han and Hangul).
 * Texts that are canonically equivalent (an "é" precomposed or as e + U+0301) look the same: the
 * service keeps the NFC form, so the same look is the same bytes.
 */
export const MAX_MARKS = 3;

// U+200E, U+200F and U+061C (directional marks) are Cf but allowed; the bidi controls are refused
// earlier with their own message.
const INVISIBLE = /(?![\u200e\u200f\u061c])[\p{Cf}\u034f\u115f\u1160\u3164\uffa0]/u;
const MARKS = new RegExp(`\\p{M}{${MAX_MARKS + 1},}`, 'u');
const WORD = /[\p{L}\p{M}]+/gu;

const SCRIPTS: [string, RegExp][] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Georgian', /\p{Script=Georgian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Han', /\p{Script=Han}/u],
  ['Hiragana', /\p{Script=Hiragana}/u],
  ['Katakana', /\p{Script=Katakana}/u],
  ['Bopomofo', /\p{Script=Bopomofo}/u],
  ['Hangul', /\p{Script=Hangul}/u],
];
/** Scripts that may share a word (UTS #39 §5.2, Highly Restrictive). */
const ALLOWED_TOGETHER = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

function scriptOf(letter: string): string | null {
  for (const [name, re] of SCRIPTS) if (re.test(letter)) return name;
  // Marks (script Inherited) and letters every script uses (Common: the prolonged sound mark ー)
  // do not decide a mix.
  return /[\p{Script=Inherited}\p{Script=Common}\p{M}]/u.test(letter) ? null : 'another script';
}

const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `text` would read as something it is not, or null. ASCII text is always fine. */
export function lookAlikeProblem(text: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(text)) return null;
  const invisible = INVISIBLE.exec(text);
  if (invisible) return `contains an invisible character ${hex(invisible[0])} at position ${invisible.index}: text that looks the same would differ`;
  const marks = MARKS.exec(text);
  if (marks) return `stacks ${[...marks[0]].length} combining marks on one character at position ${marks.index} (at most ${MAX_MARKS})`;
  for (const word of text.match(WORD) ?? []) {
    const scripts = new Set<string>();
    for (const c of word) {
      const s = scriptOf(c);
      if (s) scripts.add(s);
    }
    if (scripts.size > 1 && !ALLOWED_TOGETHER.some((set) => [...scripts].every((s) => set.has(s)))) {
      return `mixes ${[...scripts].join(' and ')} letters in one word ("${word.slice(0, 40)}"): letters of different scripts that look alike are refused`;
    }
  }
  return null;
}
