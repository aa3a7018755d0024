import { InvalidInputError } from '../domain/errors';
import { listNames } from '../domain/messages';
import { lookAlikeProblem } from './display-text';

/**
 * CONTRACT "Bounds on every request field": every string and collection a sign request carries
 * is bounded before anything else reads it. Unbounded, one `variables` value of ~120 million
 * characters made the stamp layout abort V8 (`Fatal JavaScript invalid size error`, which no
 * handler catches), and 10 MB blocked the event loop for over a second (on a 2-core machine).
 */
export const FIELD_MAX_CHARS = 1000;
export const VARIABLES_MAX_ENTRIES = 64;
export const VARIABLE_NAME_MAX_CHARS = 64;

/**
 * CONTRACT: names `__proto__`, `constructor` and `prototype` are refused (422) wherever a request
 * names a field or variable. Assigned to a plain object, `__proto__` sets its prototype instead of
 * a member (so `?__proto__=x` or `var.__proto__=x` vanished and the request got a 202), and a
 * lookup of `constructor` or `prototype` finds Object.prototype's members where nothing was given.
 */
export const RESERVED_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** 422 naming `what` (a field, `variables.NAME`, `var.NAME`) when `name` is a reserved name. */
export function assertNotReserved(name: string, what: string): void {
  if (RESERVED_NAMES.includes(name)) {
    throw new InvalidInputError(`${what} is not allowed: ${RESERVED_NAMES.join(', ')} are reserved names`);
  }
}

/**
 * CONTRACT: an unknown field in a sign request is 422, naming it; a reserved name first, with its
 * own message (JSON.parse makes `"__proto__"` an own member, so it is among the keys).
 */
export function assertKnownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const keys = Object.keys(body);
  const reserved = keys.find((k) => RESERVED_NAMES.includes(k));
  if (reserved !== undefined) assertNotReserved(reserved, `field ${reserved}`);
  const unknown = keys.filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new InvalidInputError(`unknown field${unknown.length > 1 ? 's' : ''}: ${listNames(unknown)}; allowed: ${allowed.join(', ')}`);
  }
}


function assertMaxChars(name: string, v: string, maxLength: number): void {
  if (v.length > maxLength) throw new InvalidInputError(`${name} must be at most ${maxLength} characters, got ${v.length}`);
}

/**
 * Text that ends up in the signature dictionary (/Name, /Reason, /Location) and in the drawn
 * stamp must read as it is: a bidirectional embedding, override or isolate (Unicode TR #9 §2.1,
 * U+202A-U+202E and U+2066-U+2069) reorders what a reader of the signature sees ("Trojan Source",
 * CVE-2021-42574), and a C0 or C1 control (U+0000-U+001F, U+007F-U+009F) has no glyph and can
 * hide text or break a viewer's line. Right-to-left letters need no such control (the Unicode
 * bidi algorithm orders them by itself), so "محمد" or "עברית" stay valid; the marks U+200E/U+200F
 * and U+061C only nudge neutral characters and stay valid too.
 */
// eslint-disable-next-line no-control-regex
const SPOOFING_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** The same rule as a JSON Schema pattern (the OpenAPI document of these fields). */
export const DISPLAY_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]*$';

/**
 * `v` as it is kept (NFC), or 422 naming the field: controls and bidi controls here, invisible
 * characters, piled-up combining marks and look-alike letters of two scripts (display-text.ts).
 */
export function displayText(name: string, v: string): string {
  const m = SPOOFING_CHARS.exec(v);
  if (m) {
    const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    const what = /[\u202a-\u202e\u2066-\u2069]/.test(m[0]) ? 'a bidirectional control' : 'a control character';
    throw new InvalidInputError(`${name} must not contain control or bidirectional control characters; found ${what} U+${code} at position ${m.index}`);
  }
  const normal = v.normalize('NFC');
  const problem = lookAlikeProblem(normal);
  if (problem) throw new InvalidInputError(`${name} ${problem}`);
  return normal;
}

/** displayText's check alone. */
export function assertDisplayText(name: string, v: string): void {
  displayText(name, v);
}

/** optionalString for text shown to whoever reads the signature (signer_name, reason, location). */
export function optionalDisplayText(body: Record<string, unknown>, name: string): string | null {
  const v = optionalString(body, name);
  return v === null ? null : displayText(name, v);
}

export function requiredString(body: Record<string, unknown>, name: string, maxLength = FIELD_MAX_CHARS): string {
  const v = body[name];
  if (v === undefined || v === null) throw new InvalidInputError(`${name} is required`);
  if (typeof v !== 'string') throw new InvalidInputError(`${name} must be a string, got ${typeName(v)}`);
  if (v.length === 0) throw new InvalidInputError(`${name} must not be empty`);
  assertMaxChars(name, v, maxLength);
  return v;
}

/** CONTRACT: null for an optional field means absent. */
export function optionalString(body: Record<string, unknown>, name: string, maxLength = FIELD_MAX_CHARS): string | null {
  const v = body[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new InvalidInputError(`${name} must be a string, got ${typeName(v)}`);
  assertMaxChars(name, v, maxLength);
  return v;
}

/**
 * CONTRACT: `variables` values are strings; at most 64 of them, names at most 64 characters,
 * values at most 1,000. The count is checked before any entry is read.
 */
export function optionalStringMap(body: Record<string, unknown>, name: string): Record<string, string> {
  const v = body[name];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvalidInputError(`${name} must be an object of strings, got ${typeName(v)}`);
  const keys = Object.keys(v);
  if (keys.length > VARIABLES_MAX_ENTRIES) {
    throw new InvalidInputError(`${name} must have at most ${VARIABLES_MAX_ENTRIES} entries, got ${keys.length}`);
  }
  const out: Record<string, string> = {};
  for (const k of keys) {
    if (k.length > VARIABLE_NAME_MAX_CHARS) {
      throw new InvalidInputError(`${name} names must be at most ${VARIABLE_NAME_MAX_CHARS} characters, got ${k.length} ("${k.slice(0, 40)}…")`);
    }
    assertNotReserved(k, `${name}.${k}`);
    const val = (v as Record<string, unknown>)[k];
    if (typeof val !== 'string') throw new InvalidInputError(`${name}.${k} must be a string, got ${typeName(val)}`);
    assertMaxChars(`${name}.${k}`, val, FIELD_MAX_CHARS);
    // Variable values are drawn in the stamp: the same rule as /Name, /Reason, /Location.
    out[k] = displayText(`${name}.${k}`, val);
  }
  return out;
}

export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export const LIMIT_MAX = 1000;

/**
 * CONTRACT: `limit` is digits only; 0 is 422; above 1000 (however large) is clamped to 1000;
 * anything else (empty, signs, exponents, a repeated parameter) is 422.
 */
export function parseLimit(values: string[] | undefined, fallback: number): number {
  if (!values || values.length === 0) return fallback;
  if (values.length > 1) throw new InvalidInputError('limit must be given once');
  const raw = values[0]!;
  if (!/^[0-9]+$/.test(raw)) throw new InvalidInputError(`limit must be a positive integer (digits only), got "${raw.slice(0, 20)}"`);
  const trimmed = raw.replace(/^0+/, '');
  if (trimmed === '') throw new InvalidInputError('limit must be at least 1');
  return trimmed.length > 4 ? LIMIT_MAX : Math.min(Number(trimmed), LIMIT_MAX);
}

/** Longest long-poll a caller may ask for on GET /v1/results/{id}. */
export const WAIT_MAX_SECONDS = 30;

/**
 * `wait` (seconds) on GET /v1/results/{id}: digits only like `limit`; 0 means answer at once,
 * above 30 is clamped to 30; anything else (signs, fractions, repeats) is 422.
 */
export function parseWait(values: string[] | undefined): number {
  if (!values || values.length === 0) return 0;
  if (values.length > 1) throw new InvalidInputError('wait must be given once');
  const raw = values[0]!;
  if (!/^[0-9]+$/.test(raw)) throw new InvalidInputError(`wait must be a whole number of seconds (digits only), got "${raw.slice(0, 20)}"`);
  const trimmed = raw.replace(/^0+/, '') || '0';
  return trimmed.length > 2 ? WAIT_MAX_SECONDS : Math.min(Number(trimmed), WAIT_MAX_SECONDS);
}
