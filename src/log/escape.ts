/**
 * Text that came from a request (a path, a header, a field) must not steer the terminal or forge
 * lines in a log: an ESC starts an ANSI sequence (colours, cursor moves, a rewritten title), a
 * CR or LF starts what looks like a new log line, and the Unicode bidirectional controls
 * (Unicode TR #9 §2: LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI) reorder what a reader sees.
 * Every C0 control (U+0000-U+001F), DEL, every C1 control (U+0080-U+009F: U+009B is a one-byte
 * CSI to some terminals), the line and paragraph separators, the bidi controls, and the spaces
 * other than U+0020 and the invisible characters (no-break and typographic spaces, zero-width
 * spaces and joiners, soft hyphen, BOM) are shown as escapes instead: `\xNN` below U+0100,
 * `\u{NNNN}` above. Tab stays a character only in the
 * file logs' own layout, never in escaped text.
 */
// Also spaces that are not U+0020 and invisible characters: a name padded with hundreds of
// no-break spaces pushed the real verdict of `verify` out of sight, behind a forged one.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u00a0\u00ad\u1680\u2000-\u200d\u2028-\u202f\u205f-\u2064\u2066-\u2069\u3000\ufeff]/g;

const escapeOne = (ch: string): string => {
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/** One line of text, safe for the console, service.log and errors.log. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/**
 * JSON.stringify escapes C0 controls already; C1 controls, the line separators and the bidi
 * controls it writes raw. This escapes those too (`\uNNNN`, still the same JSON value), so a
 * `cat` or `tail` of a .jsonl file is as safe as the text logs.
 */
// eslint-disable-next-line no-control-regex
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
export function stringifyJsonLine(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * JSON text (any indentation) with the characters JSON.stringify leaves raw escaped as above:
 * the same JSON value, safe on a terminal (`localsign … --json` printed there).
 */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A copy of a JSON-like value with every string in it (object keys too) passed through
 * escapeControls: for a report whose text came from a document or a platform, before something
 * formats it for a terminal (a field name must not rewrite the lines above it).
 */
export function escapeStrings<T>(value: T): T {
  if (typeof value === 'string') return escapeControls(value) as T;
  if (Array.isArray(value)) return value.map((v) => escapeStrings(v)) as T;
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [escapeControls(k), escapeStrings(v)])) as T;
  }
  return value;
}
