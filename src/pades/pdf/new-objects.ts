/**
 * A scratch pdf-lib context whose new objects are numbered after every object of the input
 * (ISO 32000-1 §7.5.6: an update adds objects with unused numbers), for the updates that follow a
 * signature (DSS, document timestamp). prepare.ts does the same inside the stamp's PDFDocument.
 */
import { PDFContext } from 'pdf-lib';
import type { PdfReader } from './pdf-reader';
import type { UpdateObject } from './incremental-writer';

export interface NewObjects {
  context: PDFContext;
  /** Every object registered in `context` since it was made. */
  created(): UpdateObject[];
}

export function newObjectsAfter(reader: PdfReader): NewObjects {
  const context = PDFContext.create();
  // Some writers list objects at or above /Size; numbering past every listed one avoids a clash.
  let highest = reader.xref.size - 1;
  for (const num of reader.xref.entries.keys()) if (num > highest) highest = num;
  context.largestObjectNumber = highest;
  const firstNew = highest + 1;
  return {
    context,
    created: () => context.enumerateIndirectObjects().filter(([ref]) => ref.objectNumber >= firstNew).map(([ref, object]) => ({ ref, object })),
  };
}
