import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { FileBytes } from '../store/file-bytes';
import { asStorageError } from '../store/storage-error';
import { Base64Bytes, chunksOf, decodePdfField, isCanonicalPdf, nextTurn, type Base64Repair } from './base64-repair';

/**
 * The 100 MB path over JSON: a large `pdf_base64` that is canonical base64 of a PDF is decoded
 * into a file in `work/` a chunk at a time, between turns of the event loop and at the disk's
 * pace, so the document is never whole in memory. Whether a field qualifies, and the
 * answer to every other one, are the tolerance rules of base64-repair.ts.
 */

/**
 * A pdf_base64 already decoded into its file while the body arrived (json-field-to-file.ts): the
 * canonical base64 of a PDF, as decodeToFile would have written it. A class, so that no JSON
 * value can pass for one.
 */
export class DecodedUpload {
  constructor(readonly file: FileBytes) {}
}

/**
 * Decodes `field` into `path` and gives the document's length, when it is canonical base64 of a
 * PDF; else null, and nothing is written (the caller then takes decodePdfField, whose repairs and
 * messages apply).
 */
async function decodeToFile(field: Base64Bytes, path: string): Promise<number | null> {
  if (!isCanonicalPdf(field.bytes)) return null;
  const out = createWriteStream(path, { mode: 0o600 });
  // Listened to from the start: a write that fails between two chunks (a full disk) is an
  // error of this request, never an uncaught one.
  let failed: unknown = null;
  out.on('error', (error) => (failed ??= error));
  let written = 0;
  try {
    for (const { text } of chunksOf(field.bytes)) {
      const chunk = Buffer.from(text, 'base64');
      written += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
      else await nextTurn();
      if (failed) throw failed;
    }
    out.end();
    await finished(out);
  } catch (error) {
    out.destroy();
    throw asStorageError(error, path);
  }
  return written;
}

/**
 * decodePdfField for a large field whose document may go to a file: canonical base64 of a PDF is
 * decoded into `path` and answered as that file; anything else as decodePdfField answers it, in
 * memory.
 */
export async function decodePdfFieldToFile(field: unknown, path: string): Promise<{ pdf: Uint8Array | FileBytes; repairs: Base64Repair[] }> {
  if (field instanceof DecodedUpload) return { pdf: field.file, repairs: [] };
  if (field instanceof Base64Bytes) {
    const length = await decodeToFile(field, path);
    if (length !== null) return { pdf: { $file: path, length }, repairs: [] };
  }
  return decodePdfField(field);
}
