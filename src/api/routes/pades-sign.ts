import type { Context } from 'hono';
import { newRequestId } from '../../config/ids';
import type { AppContext } from '../../context';
import { InvalidInputError } from '../../errors/errors';
import { decodePdfBase64 } from '../../pades/base64-repair';
import type { CachedDesign } from '../../store/catalog-types';
import { assertCredentialAllowed } from '../middleware/wrapper-auth';
import { readJsonObject } from '../middleware/read-body';
import type { ApiEnv } from '../types';
import { assertKnownFields, optionalString, optionalStringMap, requiredString } from '../validate';

const FIELDS = ['pdf_base64', 'credential_key', 'design_key', 'variables', 'reason', 'location', 'signer_name'] as const;
/** Request fields that also fill design variables of the same name (CONTRACT Result semantics). */
const FIELD_VARIABLES = ['signer_name', 'reason', 'location'] as const;

/** CONTRACT: unknown variable names and missing required ones are 422, naming them. */
export function checkVariables(design: CachedDesign, variables: Record<string, string>, fields: Record<string, string | null>): void {
  const known = new Set(design.variables.map((v) => v.name));
  const unknown = Object.keys(variables).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    throw new InvalidInputError(`unknown variable${unknown.length > 1 ? 's' : ''} for design "${design.name}": ${unknown.map((k) => k.slice(0, 40)).join(', ')}; it takes: ${[...known].join(', ') || 'none'}`);
  }
  const provided = (name: string) =>
    variables[name] !== undefined || ((FIELD_VARIABLES as readonly string[]).includes(name) && fields[name] != null);
  const missing = design.variables.filter((v) => v.required && !provided(v.name)).map((v) => v.name);
  if (missing.length > 0) {
    throw new InvalidInputError(`missing required variable${missing.length > 1 ? 's' : ''} for design "${design.name}": ${missing.join(', ')}`);
  }
}

/**
 * POST /v1/pades/sign. Everything that can be checked is checked before 202 (CONTRACT: a bad PDF
 * is a 422, never an async ERROR); the document goes to work/ so a restart can resume it.
 */
export function postPadesSign(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const body = await readJsonObject(c, ctx.config.maxBodyBytes, 'pdf_base64');
    assertKnownFields(body, FIELDS);
    const pdfField = body.pdf_base64;
    if (pdfField === undefined || pdfField === null) throw new InvalidInputError('pdf_base64 is required');
    const credentialKey = requiredString(body, 'credential_key');
    const designKeyField = optionalString(body, 'design_key', 200);
    // "" is not "absent" (only null is, CONTRACT): it names no design, and treating it as none would
    // drop the credential's default stamp without a word.
    if (designKeyField === '') throw new InvalidInputError('design_key must not be empty');
    const variables = optionalStringMap(body, 'variables');
    const fields = {
      reason: optionalString(body, 'reason'),
      location: optionalString(body, 'location'),
      signer_name: optionalString(body, 'signer_name'),
    };
    assertCredentialAllowed(c.get('wrapper').credentials, credentialKey);
    const cache = ctx.cache.get();
    const credential = cache.credentials.find((x) => x.credential_key === credentialKey);
    if (!credential) throw new InvalidInputError(`credential_key ${credentialKey.slice(0, 64)} is not a known credential (see GET /v1/credentials)`);
    if (credential.type !== 'pades') throw new InvalidInputError(`credential_key ${credentialKey} is ${credential.type === 'evm' ? 'an' : 'a'} ${credential.type} credential; PAdES signing needs a pades one`);
    const designKey = designKeyField ?? credential.default_design_key;
    let design: CachedDesign | undefined;
    if (designKey) {
      design = cache.designs.find((d) => d.design_key === designKey);
      if (!design) {
        throw new InvalidInputError(designKeyField ? `design_key ${designKeyField.slice(0, 64)} is not a known design (see GET /v1/designs)` : `the credential's default design ${designKey} is not in the cache; run sync`);
      }
      checkVariables(design, variables, fields);
    } else if (Object.keys(variables).length > 0) {
      throw new InvalidInputError('variables were given but no design applies (no design_key and the credential has no default design)');
    }
    const { pdf, repairs } = decodePdfBase64(pdfField);
    // pdf-lib loads on the first PAdES request, not at start-up (see job-runner.ts).
    const { checkPdfForSigning } = await import('../../pades/sign-check');
    checkPdfForSigning(pdf, design ? design.stamp.page : 'first');
    const requestId = newRequestId();
    if (repairs.length > 0) ctx.log.warn(`${requestId}: pdf_base64 repaired (${repairs.join(', ')})`);
    // The document and the PENDING record are made durable side by side (two fsyncs at once)
    // while signing already runs on the in-memory copy; the 202 and the final state wait for both.
    // A crash in between leaves an orphan work file (removed at start-up) or a PENDING request
    // without its document, which recovery ends in ERROR: never a lost 202.
    const written = ctx.writeWorkFile(requestId, pdf);
    ctx.holdDocument(requestId, pdf, written);
    const { entry, durable } = ctx.requests.registry.begin({
      id: requestId,
      kind: 'pades',
      credentialKey,
      wrapperKey: c.get('wrapper').key,
      params: { design_key: design ? design.design_key : null, variables, ...fields },
    });
    ctx.requests.jobs.start(entry, Promise.all([written, durable]).then(() => undefined));
    const [w, d] = await Promise.allSettled([written, durable]);
    if (d.status === 'rejected') throw d.reason;
    if (w.status === 'rejected') {
      await ctx.requests.registry.fail(requestId, w.reason);
      throw w.reason;
    }
    return c.json({ request_id: entry.request_id, status: entry.status }, 202);
  };
}
