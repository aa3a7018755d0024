import { InvalidInputError } from '../errors/errors';

/** CONTRACT: an unknown field in a sign request is 422, naming it. */
export function assertKnownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new InvalidInputError(`unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => k.slice(0, 40)).join(', ')}; allowed: ${allowed.join(', ')}`);
  }
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (v === undefined || v === null) throw new InvalidInputError(`${name} is required`);
  if (typeof v !== 'string') throw new InvalidInputError(`${name} must be a string, got ${typeName(v)}`);
  if (v.length === 0) throw new InvalidInputError(`${name} must not be empty`);
  return v;
}

/** CONTRACT: null for an optional field means absent. */
export function optionalString(body: Record<string, unknown>, name: string, maxLength = 1000): string | null {
  const v = body[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new InvalidInputError(`${name} must be a string, got ${typeName(v)}`);
  if (v.length > maxLength) throw new InvalidInputError(`${name} must be at most ${maxLength} characters`);
  return v;
}

/** CONTRACT: `variables` values are strings. */
export function optionalStringMap(body: Record<string, unknown>, name: string): Record<string, string> {
  const v = body[name];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvalidInputError(`${name} must be an object of strings, got ${typeName(v)}`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    if (typeof val !== 'string') throw new InvalidInputError(`${name}.${k.slice(0, 40)} must be a string, got ${typeName(val)}`);
    out[k] = val;
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
