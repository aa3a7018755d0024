/**
 * Base64 without Node's Buffer, so the client also runs in an Electron renderer; Buffer is used
 * when present because it is much faster on large documents.
 */
interface BufferLike {
  from(data: Uint8Array | string, encoding?: string): { toString(encoding: string): string; buffer: ArrayBufferLike; byteOffset: number; byteLength: number };
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: string): string };
}
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

export function toBase64(bytes: Uint8Array): string {
  // A view of the caller's bytes, not a copy of them.
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let out = '';
  const CHUNK = 3 * 8192;
  for (let i = 0; i < bytes.length; i += CHUNK) out += btoa(String.fromCharCode(...bytes.subarray(i, i + CHUNK)));
  // Chunks of a multiple of 3 bytes concatenate into one valid base64 string.
  return out;
}

export function fromBase64(text: string): Uint8Array {
  if (NodeBuffer) {
    const b = NodeBuffer.from(text, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) out[i] = binary.charCodeAt(i);
  return out;
}
