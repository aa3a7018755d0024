/**
 * Two PDF values the same by what they mean, not by how they were written: what the reference
 * validators compare when they diff two revisions (EU DSS compares parsed objects with integers
 * promoted to reals; pyHanko compares parsed objects, not bytes). So a catalog value written
 * again as a hex string instead of a literal one (ISO 32000-1 §7.3.4: both are strings), or a
 * text string in UTF-16BE instead of PDFDocEncoding (§7.9.2.2: the same text), is no change;
 * `612` and `612.0` are the same number (§7.3.3). References are compared as references (the
 * object each names is judged on its own), never followed here.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';

/** Nesting compared before two values are called different: deeper than any real dictionary. */
const MAX_DEPTH = 64;

function bytesOf(s: PDFString | PDFHexString): Uint8Array | null {
  try {
    return s.asBytes();
  } catch {
    return null;
  }
}

function textOf(s: PDFString | PDFHexString): string | null {
  try {
    return s.decodeText();
  } catch {
    return null;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

/** §7.3.4 and §7.9.2.2: the same bytes, or the same text in either text encoding. */
function sameString(a: PDFString | PDFHexString, b: PDFString | PDFHexString): boolean {
  if (a.constructor === b.constructor && a.asString() === b.asString()) return true;
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x && y && sameBytes(x, y)) return true;
  const s = textOf(a);
  return s !== null && s === textOf(b);
}

const isString = (v: PDFObject): v is PDFString | PDFHexString => v instanceof PDFString || v instanceof PDFHexString;

/** True when `a` and `b` mean the same (see the module comment); streams compare their encoded bytes too. */
export function sameValue(a: PDFObject | undefined, b: PDFObject | undefined, depth = 0): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || depth > MAX_DEPTH) return false;
  if (isString(a) || isString(b)) return isString(a) && isString(b) && sameString(a, b);
  if (a instanceof PDFNumber || b instanceof PDFNumber) return a instanceof PDFNumber && b instanceof PDFNumber && a.asNumber() === b.asNumber();
  if (a instanceof PDFRef || b instanceof PDFRef) return a instanceof PDFRef && b instanceof PDFRef && a.objectNumber === b.objectNumber;
  if (a instanceof PDFName || b instanceof PDFName) return a instanceof PDFName && b instanceof PDFName && a.decodeText() === b.decodeText();
  if (a instanceof PDFRawStream || b instanceof PDFRawStream) {
    return a instanceof PDFRawStream && b instanceof PDFRawStream && sameValue(a.dict, b.dict, depth + 1) && sameBytes(a.contents, b.contents);
  }
  if (a instanceof PDFArray || b instanceof PDFArray) {
    if (!(a instanceof PDFArray && b instanceof PDFArray) || a.size() !== b.size()) return false;
    for (let i = 0; i < a.size(); i++) if (!sameValue(a.get(i), b.get(i), depth + 1)) return false;
    return true;
  }
  if (a instanceof PDFDict || b instanceof PDFDict) {
    if (!(a instanceof PDFDict && b instanceof PDFDict)) return false;
    const keys = a.keys();
    if (keys.length !== b.keys().length) return false;
    for (const k of keys) if (!b.has(k) || !sameValue(a.get(k), b.get(k), depth + 1)) return false;
    return true;
  }
  // Booleans and null: their written form is their value.
  return a.toString() === b.toString();
}
