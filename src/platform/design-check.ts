/**
 * What makes a stamp design usable (PLATFORM.md "Catalogue": `stamp` is `{page: "first"|"last"|N,
 * x, y, width, height, lines:[{text, size}], image_png_base64?}` in PDF points from the page's
 * lower-left corner; page numbers count from 1), plus our `on_conflict` and `background`
 * (CONTRACT). A design from the platform or from an operator
 * is checked here once, so a job never meets a design it cannot draw.
 */
import { checkPngLimits } from './png-limits';
import type { CachedDesign } from '../store/catalog-types';

/** ISO 32000-1 Annex C.2: a page is at most 14,400 units on a side. */
const MAX_POINTS = 14_400;
const MAX_LINES = 20;
const MAX_TEXT = 500;
const MAX_VARIABLES = 64;
const VARIABLE_NAME = /^[\p{L}\p{N}_.-]{1,64}$/u;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const ON_CONFLICT = ['overlap', 'new_page', 'refuse'];
const COLOUR = /^#[0-9a-fA-F]{6}$/;
/**
 * CONTRACT: `__proto__`, `constructor` and `prototype` are refused wherever a variable is named. A
 * design variable of such a name is looked up in plain objects (the request's values, the stamp's
 * fill), where it finds Object.prototype's members instead of nothing.
 */
const RESERVED_VARIABLE_NAMES = ['__proto__', 'constructor', 'prototype'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The stamp image's problem, or null: what its PNG header declares must stay within the caps of
 * png-limits.ts (a 31 KB dimension bomb cost 2 GB on every signature). Apart from
 * checkDesign so that a platform's design over the caps is left out of the cache and named
 * (catalog-screen.ts), where a malformed catalogue fails the whole sync.
 */
export function checkDesignImage(design: CachedDesign): string | null {
  const png = design.stamp.image_png_base64;
  if (png === undefined || png === null) return null;
  const problem = checkPngLimits(new Uint8Array(Buffer.from(png, 'base64')));
  return problem ? `stamp.image_png_base64 ${problem}` : null;
}

/** The first problem of `design`, naming the field, or null when it can be drawn. */
export function checkDesign(design: unknown): string | null {
  if (!isObject(design)) return 'a design must be a JSON object';
  if (typeof design.design_key !== 'string' || design.design_key === '' || design.design_key.length > 200) return 'design_key must be a non-empty string of at most 200 characters';
  if (typeof design.name !== 'string' || design.name === '' || design.name.length > 200) return 'name must be a non-empty string of at most 200 characters';
  const variables = design.variables;
  if (!Array.isArray(variables) || variables.length > MAX_VARIABLES) return `variables must be a list of at most ${MAX_VARIABLES} {name, required, description}`;
  const seen = new Set<string>();
  for (const [i, v] of variables.entries()) {
    if (!isObject(v) || typeof v.name !== 'string' || !VARIABLE_NAME.test(v.name)) return `variables[${i}].name must be 1 to 64 letters, digits, "_", "." or "-"`;
    if (RESERVED_VARIABLE_NAMES.includes(v.name)) return `variables[${i}].name "${v.name}" is reserved (__proto__, constructor and prototype name no variable)`;
    if (seen.has(v.name)) return `variables[${i}].name "${v.name}" appears twice`;
    seen.add(v.name);
    if (typeof v.required !== 'boolean') return `variables[${i}].required must be true or false`;
    if (v.description !== undefined && typeof v.description !== 'string') return `variables[${i}].description must be a string`;
  }
  return checkStamp(design.stamp);
}

function checkStamp(stamp: unknown): string | null {
  if (!isObject(stamp)) return 'stamp must be an object {page, x, y, width, height, lines}';
  const page = stamp.page;
  if (page !== 'first' && page !== 'last' && !(Number.isSafeInteger(page) && (page as number) >= 1)) return 'stamp.page must be "first", "last" or a page number counted from 1';
  for (const k of ['x', 'y'] as const) {
    if (!finite(stamp[k]) || Math.abs(stamp[k] as number) > MAX_POINTS) return `stamp.${k} must be a number of points within ±${MAX_POINTS}`;
  }
  for (const k of ['width', 'height'] as const) {
    if (!finite(stamp[k]) || (stamp[k] as number) <= 0 || (stamp[k] as number) > MAX_POINTS) return `stamp.${k} must be a number of points above 0 and at most ${MAX_POINTS}`;
  }
  const lines = stamp.lines;
  if (!Array.isArray(lines) || lines.length > MAX_LINES) return `stamp.lines must be a list of at most ${MAX_LINES} {text, size}`;
  for (const [i, l] of lines.entries()) {
    if (!isObject(l) || typeof l.text !== 'string' || l.text.length > MAX_TEXT) return `stamp.lines[${i}].text must be a string of at most ${MAX_TEXT} characters`;
    if (!finite(l.size) || l.size < 1 || l.size > 144) return `stamp.lines[${i}].size must be a font size from 1 to 144 points`;
  }
  const png = stamp.image_png_base64;
  if (png !== undefined && png !== null && (typeof png !== 'string' || !BASE64.test(png))) return 'stamp.image_png_base64 must be standard base64';
  // CONTRACT: a design's `stamp` may add `on_conflict` and `background`.
  const onConflict = stamp.on_conflict;
  if (onConflict !== undefined && !ON_CONFLICT.includes(onConflict as string)) return 'stamp.on_conflict must be "overlap", "new_page" or "refuse"';
  const background = stamp.background;
  if (background !== undefined && background !== 'none' && !(typeof background === 'string' && COLOUR.test(background))) return 'stamp.background must be a colour "#rrggbb" or "none"';
  return null;
}
