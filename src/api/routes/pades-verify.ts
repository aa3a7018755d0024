import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { decodePdfField } from '../base64-repair';
import { verifyPdf } from '../../signing/validation';
import { readJsonObject } from '../middleware/read-body';
import type { ApiEnv } from '../types';
import { PADES_VERIFY_BODY, parseBody } from '../request-schemas';

/**
 * POST /v1/pades/verify (CONTRACT extension): `{pdf_base64, revocation?}` with the sign route's
 * tolerance rules, answered `200 {valid, signatures: […], problems: […]}`. A report: the document
 * is never stored. It is read in a PDF worker, under its heap limit and deadline. A PDF that
 * cannot be fully read (damaged cross-reference data, or no reading at all) is a `200` report naming why in `problems`; input
 * that is not a PDF is a `422` from decodePdfField, and so is a document over a per-document
 * limit (CONTRACT).
 */
export function postPadesVerify(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const b = parseBody(await readJsonObject(c, ctx.config.maxBodyBytes, 'pdf_base64'), PADES_VERIFY_BODY);
    const { pdf } = await decodePdfField(b.pdf_base64);
    return c.json(await verifyPdf(ctx.documentWork.forOwner(c.get('wrapper').key), pdf, ctx.trustAnchors(), ctx.now(), { revocation: b.revocation ?? undefined }), 200);
  };
}
