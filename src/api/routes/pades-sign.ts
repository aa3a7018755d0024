import type { Context } from 'hono';
import { Base64Bytes, decodePdfField } from '../base64-repair';
import { DecodedUpload, decodePdfFieldToFile } from '../base64-to-file';
import { requirePdfHeader } from '../../signing/validation';
import type { AppContext } from '../../context';
import { InvalidInputError } from '../../domain/errors';
import { acceptPades, type PadesSignInput } from '../../signing/kinds';
import { readBodyBytes, readBodyToFile, readJsonObject, readJsonObjectToFile } from '../middleware/read-body';
import { FILE_MIN_BYTES } from '../../store/file-bytes';
import { PADES_SIGN_BODY, parseBody, type Parsed } from '../request-schemas';
import type { ApiEnv } from '../types';
import { assertKnownFields, assertNotReserved } from '../validate';

/** The raw transport's query parameters: the JSON fields but the document, variables as `var.NAME`. */
const QUERY_FIELDS = ['credential_key', 'design_key', 'reason', 'location', 'signer_name', 'level', 'certify'] as const;
const VAR_PREFIX = 'var.';
// chip_pin is taken in a JSON body only: a query string is logged by proxies and kept in histories.
const { pdf_base64: _document, chip_pin: _pin, ...RAW_FIELDS } = PADES_SIGN_BODY;

/**
 * The raw transport (CONTRACT extension): the PDF as the body, the other fields as query
 * parameters, each given once; `var.NAME=value` for variables. No base64: a large document is
 * read once, with a third less to send. The fields are checked before the body is read.
 */
function queryFields(c: Context<ApiEnv>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const variables: Record<string, string> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (name === 'chip_pin') throw new InvalidInputError('chip_pin is taken in a JSON body only, never in the query string (proxies log it, shells keep it); send the request as JSON');
    if (values.length > 1) throw new InvalidInputError(`${name.slice(0, 64)} must be given once`);
    // Before the assignments below: `__proto__` would set the object's prototype and vanish (a 202).
    const variable = name.startsWith(VAR_PREFIX) ? name.slice(VAR_PREFIX.length) : null;
    assertNotReserved(variable ?? name, name);
    if (variable !== null) variables[variable] = values[0]!;
    // A query parameter is text: certify=2 is the number 2 (one digit, else the JSON check refuses it).
    else body[name] = name === 'certify' && /^[0-9]$/.test(values[0]!) ? Number(values[0]) : values[0];
  }
  assertKnownFields(body, QUERY_FIELDS);
  if (Object.keys(variables).length > 0) body.variables = variables;
  return body;
}

/** The parsed fields, camel-cased for the accept service. */
function fieldsOf(b: Parsed<typeof RAW_FIELDS>): Omit<PadesSignInput, 'pdf' | 'chipPin'> {
  return { credentialKey: b.credential_key, designKey: b.design_key, variables: b.variables, reason: b.reason, location: b.location, signerName: b.signer_name, level: b.level, certify: b.certify };
}

/** POST /v1/pades/sign: parse and bound the input (request-schemas.ts), accept (signing/accept.ts), answer 202. */
export function postPadesSign(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    let input: PadesSignInput;
    // Every bound is checked before the PDF is decoded or anything is looked up (CONTRACT bounds).
    if (type === 'application/pdf') {
      const b = parseBody(queryFields(c), RAW_FIELDS);
      const length = c.req.header('content-length');
      const declared = Number(length ?? NaN);
      // A large body, or one of unknown size (chunked), goes to disk as it arrives, never to memory.
      if (length === undefined || (Number.isSafeInteger(declared) && declared >= FILE_MIN_BYTES && declared <= ctx.config.maxBodyBytes)) {
        return acceptThroughFile(ctx, c, async (path) => {
          const { length, head } = await readBodyToFile(c, ctx.config.maxBodyBytes, path);
          return {
            ...fieldsOf(b),
            chipPin: null,
            pdf: () => {
              requirePdfHeader(head, 'the request body');
              return { pdf: { $file: path, length }, repairs: [] };
            },
          };
        });
      }
      const bytes = await readBodyBytes(c, ctx.config.maxBodyBytes);
      input = { ...fieldsOf(b), chipPin: null, pdf: () => (requirePdfHeader(bytes, 'the request body'), { pdf: bytes, repairs: [] }) };
    } else {
      const declared = Number(c.req.header('content-length') ?? NaN);
      // A document of 4 MiB or more is decoded into a file (its base64 is 4/3 of it), never whole
      // in memory: as the body arrives when it is canonical base64, else once it has.
      if (Number.isSafeInteger(declared) && declared >= (FILE_MIN_BYTES / 3) * 4 && declared <= ctx.config.maxBodyBytes) {
        return acceptThroughFile(ctx, c, async (path) => {
          const b = parseBody(await readJsonObjectToFile(c, ctx.config.maxBodyBytes, 'pdf_base64', path), PADES_SIGN_BODY);
          const field = b.pdf_base64;
          const large = field instanceof DecodedUpload || (field instanceof Base64Bytes && field.bytes.length >= (FILE_MIN_BYTES / 3) * 4);
          return { ...fieldsOf(b), chipPin: b.chip_pin, pdf: () => (large ? decodePdfFieldToFile(field, path) : decodePdfField(field)) };
        });
      }
      const b = parseBody(await readJsonObject(c, ctx.config.maxBodyBytes, 'pdf_base64'), PADES_SIGN_BODY);
      const field = b.pdf_base64;
      input = { ...fieldsOf(b), chipPin: b.chip_pin, pdf: () => decodePdfField(field) };
    }
    const entry = await acceptPades(ctx.accepting(), input, c.get('wrapper'));
    return c.json({ request_id: entry.requestId, status: entry.status }, 202);
  };
}

/**
 * A large document goes to a file in work/ (the 100 MB path): a raw body as it arrives, a large
 * pdf_base64 as it arrives when it is canonical base64 of a PDF, else as it is decoded after the
 * other checks (its errors are answered after them either way). The file goes to the
 * PDF worker's check and is adopted as the request's work file: the service never holds the
 * document, and it is written once. A file no request took is removed.
 */
async function acceptThroughFile(ctx: AppContext, c: Context<ApiEnv>, read: (path: string) => Promise<PadesSignInput>) {
  const path = ctx.documents.uploadPath();
  try {
    const input = await read(path);
    const entry = await acceptPades(ctx.accepting(), input, c.get('wrapper'));
    return c.json({ request_id: entry.requestId, status: entry.status }, 202);
  } finally {
    // Adopted as the work file, it is no longer there; refused or cut off, it goes.
    await ctx.documents.discardUpload(path);
  }
}
