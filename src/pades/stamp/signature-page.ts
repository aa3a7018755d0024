/**
 * A signature page appended in the incremental update, for a design whose stamp fits nowhere on
 * its page and whose `on_conflict` is "new_page". The page joins the root of the page tree
 * (ISO 32000-1 §7.7.3.2: its /Kids and /Count), so the rewrite touches the root /Pages (and its
 * /Kids array when that is an object of its own) and nothing else of the signed document.
 */
import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, type PDFContext } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import type { PdfReader } from '../pdf';
import type { Box } from '../pdf';
import type { UpdateObject } from '../pdf';
import type { PageRef } from '../pdf';

export interface SignaturePageInput {
  reader: PdfReader;
  context: PDFContext;
  catalog: PDFDict;
  mediaBox: Box;
  cropBox: Box | null;
  rotate: number;
}

const boxArray = (b: Box): number[] => [b.x1, b.y1, b.x2, b.y2];

/**
 * Registers an empty page of the given boxes at the end of the document. Every inheritable
 * attribute (§7.7.3.4 Table 30) is set on the page itself, so nothing the root carries for the
 * other pages changes it; an empty /Resources and no /Contents make a blank page (§7.7.3.3).
 */
export function addSignaturePage(o: SignaturePageInput): { page: PageRef; rewrites: UpdateObject[] } {
  const { reader, context, catalog } = o;
  const rootRef = catalog.get(PDFName.of('Pages'));
  const root = reader.resolve(rootRef);
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict)) throw new PdfInputError('the page tree root (/Pages) is not an indirect dictionary: a signature page cannot be added');
  const kidsEntry = root.get(PDFName.of('Kids'));
  const kids = reader.resolve(kidsEntry);
  if (!(kids instanceof PDFArray)) throw new PdfInputError('the page tree root has no /Kids array: a signature page cannot be added');
  const count = reader.getNumber(root, 'Count') ?? 0;

  const dict = context.obj({
    Type: 'Page',
    Parent: rootRef,
    MediaBox: boxArray(o.mediaBox),
    CropBox: boxArray(o.cropBox ?? o.mediaBox),
    Rotate: o.rotate,
    Resources: {},
  }) as PDFDict;
  const ref = context.register(dict);
  kids.push(ref);
  root.set(PDFName.of('Count'), PDFNumber.of(count + 1));
  const rewrite = (r: PDFRef, object: PDFDict | PDFArray): UpdateObject => ({ ref: PDFRef.of(r.objectNumber, reader.generationOf(r.objectNumber)), object });
  const rewrites = [rewrite(rootRef, root)];
  if (kidsEntry instanceof PDFRef) rewrites.push(rewrite(kidsEntry, kids));
  return { page: { ref, dict, index: count }, rewrites };
}
