/**
 * A document that waits in a file rather than in memory (a large one, written by a PDF worker
 * process: workers/large-bytes.ts), with the store's ways to read part of it or adopt it.
 */
import { open } from 'node:fs/promises';

/**
 * From this size a document crosses to a PDF worker process in a file rather than through the IPC
 * channel (V8-serializing 100 MB through it took 430 ms each way on a 2-core machine; a file half
 * of that).
 */
export const FILE_MIN_BYTES = 4 * 1024 * 1024;

export interface FileBytes {
  $file: string;
  length: number;
}

/** A document: its bytes, or the file that holds them. */
export type DocumentBytes = Uint8Array | FileBytes;

export function isFileBytes(value: unknown): value is FileBytes {
  return typeof value === 'object' && value !== null && typeof (value as FileBytes).$file === 'string' && typeof (value as FileBytes).length === 'number';
}

export function byteLength(doc: DocumentBytes): number {
  return isFileBytes(doc) ? doc.length : doc.byteLength;
}

/** `length` bytes from `offset` (a signature's /Contents, say), without reading the whole file. */
export async function readSlice(doc: DocumentBytes, offset: number, length: number): Promise<Uint8Array> {
  if (!isFileBytes(doc)) return doc.subarray(offset, offset + length);
  const handle = await open(doc.$file, 'r');
  try {
    const out = Buffer.alloc(length);
    const { bytesRead } = await handle.read(out, 0, length, offset);
    return new Uint8Array(out.buffer, out.byteOffset, bytesRead);
  } finally {
    await handle.close();
  }
}
