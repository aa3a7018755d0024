/**
 * A stamp drawn on a blank page, as it will sit on a signed document (`design:preview`): the same
 * appearance stream the signature's widget gets (stamp.ts), placed at the stamp's x/y in PDF
 * points from the lower-left corner (ISO 32000-1 §8.3.2.3). An operator sees a design before
 * anyone signs with it. Pure: bytes out, nothing read or written.
 */
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState, rgb, StandardFonts } from 'pdf-lib';
import { drawStamp } from './stamp';
import type { StampSpec } from '../../domain/pades';

/** ISO 216 A4 in points, the page a stamp is most often drawn on; larger when the box needs it. */
const A4: [number, number] = [595.28, 841.89];
const MARGIN = 36;

/** The preview's PDF, and the stamp's warnings (a line cut with "…", left out or below 6 pt), as a signature would get them. */
export async function renderDesignPreview(stamp: StampSpec, caption: string): Promise<{ pdf: Uint8Array; warnings: string[] }> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const width = Math.max(A4[0], stamp.x + stamp.width + MARGIN);
  const height = Math.max(A4[1], stamp.y + stamp.height + MARGIN);
  const page = doc.addPage([width, height]);
  const { form, warnings } = await drawStamp(doc, stamp);
  const name = page.node.newXObject('Stamp', form);
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(1, 0, 0, 1, stamp.x, stamp.y), drawObject(name), popGraphicsState());
  // Helvetica's WinAnsi set: the caption is ours (ASCII), the design's own text is in the stamp.
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText(caption.replace(/[^\x20-\x7e]/g, '?').slice(0, 120), { x: MARGIN / 2, y: height - MARGIN / 2 - 8, size: 8, font, color: rgb(0.45, 0.45, 0.45) });
  return { pdf: await doc.save({ useObjectStreams: false }), warnings };
}
