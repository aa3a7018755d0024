/**
 * JSON bodies that carry a document in base64 (`pdf_base64`), written and read as bytes where
 * Node's Buffer is there. The plain way (JSON.stringify, then UTF-8; UTF-8 decoding, then
 * JSON.parse) walks and copies the 133 MB of text of a 100 MB document four more times, and took
 * 0.65 s before the upload and 0.2 s after the answer (CPU profiles of `whole-localsign.ts` over
 * JSON on a 2-core machine). Base64 needs no JSON escaping and is ASCII, so its text is its bytes:
 * it is put into the body, and taken out of the answer, as bytes. Anything else takes the plain
 * way, which is also the whole of it without Buffer (a browser).
 */

import { toBase64 } from './base64.js';

interface BufferLike {
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): Uint8Array & { toString(encoding: string, start?: number, end?: number): string };
  allocUnsafe(size: number): Uint8Array & { write(text: string, offset: number, encoding: string): number };
  byteLength(text: string, encoding: string): number;
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** Below this, the plain way costs too little to matter. */
const LARGE_BYTES = 1024 * 1024;

/**
 * `fields` as a JSON object with `name` set to the base64 of `bytes`, as the body's bytes: the same
 * JSON as `JSON.stringify({...fields, [name]: base64})`, with that member last.
 */
export function jsonWithBase64(fields: Record<string, unknown>, name: string, bytes: Uint8Array): string | Uint8Array {
  const { [name]: _replaced, ...others } = fields;
  if (!NodeBuffer || bytes.byteLength < LARGE_BYTES) return JSON.stringify({ ...others, [name]: toBase64(bytes) });
  const head = JSON.stringify({ ...others, [name]: '' });
  // The member is last and empty: the head ends with its opening quote once the '"}' goes.
  const open = head.slice(0, -2);
  const text = toBase64(bytes);
  const headBytes = NodeBuffer.byteLength(open, 'utf8');
  const body = NodeBuffer.allocUnsafe(headBytes + text.length + 2);
  body.write(open, 0, 'utf8');
  body.write(text, headBytes, 'latin1');
  body.write('"}', headBytes + text.length, 'latin1');
  return body;
}

/**
 * An answer's JSON text (UTF-8) parsed; null for an empty one; throws as JSON.parse does. A
 * large answer whose last member is `name`, a string with no escape in it (the service's result of
 * a signed document), has that string made from its bytes: the rest alone goes to JSON.parse.
 */
export function parseJsonBytes(bytes: Uint8Array, name = 'pdf_base64'): unknown {
  if (NodeBuffer && bytes.byteLength >= LARGE_BYTES) {
    const value = lastStringMember(bytes, name);
    if (value !== undefined) return value;
  }
  const text = new TextDecoder().decode(bytes);
  return text === '' ? null : JSON.parse(text);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE = 0x7d;

/** The object with `name` read from the bytes, or undefined when the answer is not shaped so. */
function lastStringMember(bytes: Uint8Array, name: string): unknown {
  const b = NodeBuffer!.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as Uint8Array & { indexOf(value: string | number, from?: number): number; lastIndexOf(value: string | number, from?: number): number };
  // From the end: `"}` and nothing but whitespace after it, then the string's opening quote.
  let end = b.length - 1;
  while (end > 0 && isSpace(b[end]!)) end -= 1;
  if (b[end] !== CLOSE || b[end - 1] !== QUOTE) return undefined;
  const key = `${JSON.stringify(name)}:"`;
  const at = b.lastIndexOf(key, end - 1);
  if (at < 0) return undefined;
  const start = at + key.length;
  const quote = b.indexOf(QUOTE, start);
  // No quote and no backslash inside: the string is its bytes; only ASCII bytes read the same as
  // Latin-1 and as UTF-8.
  const backslash = b.indexOf(BACKSLASH, start);
  if (quote !== end - 1 || (backslash >= 0 && backslash < quote)) return undefined;
  const text = (b as unknown as { toString(encoding: string, start: number, end: number): string }).toString('latin1', start, quote);
  if (NodeBuffer!.byteLength(text, 'utf8') !== text.length) return undefined;
  let rest: unknown;
  try {
    rest = JSON.parse(new TextDecoder().decode(b.subarray(0, start)) + new TextDecoder().decode(b.subarray(quote)));
  } catch {
    return undefined;
  }
  // One `}` after the member, and the rest an object with that member empty: it is the outer
  // object's own member, not one inside a nested value.
  if (rest === null || typeof rest !== 'object' || Array.isArray(rest) || (rest as Record<string, unknown>)[name] !== '') return undefined;
  (rest as Record<string, unknown>)[name] = text;
  return rest;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
