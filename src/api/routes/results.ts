import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { LocalsignError } from '../../domain/errors';
import type { RequestEntry } from '../../store/request-store';
import type { ApiEnv } from '../types';
import { STAMP_HEADER, WARNINGS_HEADER } from '../operations';
import { parseLimit, parseWait } from '../validate';

/**
 * A request is visible only to the application key that made it: another key gets the same 404
 * as an unknown id, so ids leak nothing across applications.
 */
function visible(entry: RequestEntry | undefined, wrapperKey: string): entry is RequestEntry {
  return entry !== undefined && entry.wrapperKey === wrapperKey;
}

/**
 * The caller's request `request_id`, after `?wait=N`: a long poll holds a PENDING answer up to N
 * seconds, so a client needs one request per result instead of a polling loop (each poll costs
 * the service a full HTTP exchange).
 */
async function visibleEntry(ctx: AppContext, c: Context<ApiEnv>, served?: (entry: RequestEntry) => boolean): Promise<RequestEntry> {
  const id = c.req.param('request_id') ?? '';
  const wait = parseWait(c.req.queries('wait'));
  const entry = ctx.requests.store.get(id);
  if (!visible(entry, c.get('wrapper').key)) {
    throw new LocalsignError('not_found', `no request ${id.slice(0, 64)}`, { type: 'not_found' });
  }
  // A request of another kind than the route serves answers at once (nothing to wait for).
  if (entry.status !== 'PENDING' || wait === 0 || (served !== undefined && !served(entry))) return entry;
  await ctx.requests.registry.waitForFinal(id, wait * 1000);
  return ctx.requests.store.get(id) ?? entry;
}

/**
 * `{…head, "name": "<base64 of the file>"}` streamed: base64 needs no JSON escaping, so it is
 * encoded piece by piece as the file is read. The document as a base64 string and that string as
 * a Buffer were 280 MB of the service's peak for a 100 MB result.
 */
export function base64JsonBody(head: string, name: string, file: { size: number; stream: Readable }): { length: number; stream: ReadableStream } {
  const open = `${head},${JSON.stringify(name)}:"`;
  const close = '"}';
  const length = Buffer.byteLength(open) + 4 * Math.ceil(file.size / 3) + close.length;
  async function* pieces(): AsyncGenerator<Buffer> {
    yield Buffer.from(open);
    // Whole groups of 3 bytes per piece; the one or two bytes over wait for the next chunk's first
    // (a chunk is never copied to join them), or are padded at the end. Base64 is ASCII: its text
    // goes into the piece as Latin-1, a plain copy (UTF-8 took a third longer a MiB).
    let rest = Buffer.alloc(0);
    for await (const chunk of file.stream as AsyncIterable<Buffer>) {
      let from = 0;
      if (rest.length > 0) {
        from = Math.min(3 - rest.length, chunk.length);
        rest = Buffer.concat([rest, chunk.subarray(0, from)]);
        if (rest.length < 3) continue;
        yield Buffer.from(rest.toString('base64'), 'latin1');
        rest = Buffer.alloc(0);
      }
      const whole = from + Math.floor((chunk.length - from) / 3) * 3;
      if (whole > from) yield Buffer.from(chunk.toString('base64', from, whole), 'latin1');
      rest = Buffer.from(chunk.subarray(whole));
    }
    yield Buffer.from(rest.toString('base64') + close, 'latin1');
  }
  return { length, stream: Readable.toWeb(Readable.from(pieces())) as ReadableStream };
}

export function getResult(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const entry = await visibleEntry(ctx, c);
    const body: Record<string, unknown> = { request_id: entry.requestId, status: entry.status };
    if (entry.status === 'ERROR') {
      body.error = entry.error;
      body.error_id = entry.errorId;
    } else if (entry.status === 'DONE') {
      // A kind whose result is a document (the PAdES one): that document, from results/.
      const document = ctx.kinds.get(entry.kind)?.document;
      if (document) {
        const file = await ctx.documents.openResult(entry.requestId);
        if (!file) throw new LocalsignError('internal', 'the signed document of this request is missing from the results folder');
        // CONTRACT: a PAdES result may add `warnings` (for example a stamp moved to free space).
        const warnings = entry.result?.warnings;
        if (Array.isArray(warnings) && warnings.length > 0) body.warnings = warnings;
        // Where the stamp is (its page, the page count, its box): absent for an invisible signature.
        if (entry.result?.stamp) body.stamp = entry.result.stamp;
        const answer = base64JsonBody(JSON.stringify(body).slice(0, -1), document.field, file);
        return c.body(answer.stream, 200, { 'content-type': 'application/json', 'content-length': String(answer.length) });
      } else {
        Object.assign(body, entry.result);
      }
    }
    return c.json(body);
  };
}

const PDF = 'application/pdf';

/**
 * GET /v1/results/{id}/pdf (CONTRACT extension): the signed PDF as `application/pdf`, streamed from
 * disk; 404 until the request is DONE (and for a blockchain request, which has no PDF). `?wait=N`
 * waits for a PENDING request first: a client of the raw transport gets its document in one call,
 * without the 4/3-size base64 copy GET /v1/results/{id} carries.
 */
export function getResultPdf(ctx: AppContext) {
  const isPdf = (entry: RequestEntry) => ctx.kinds.get(entry.kind)?.document?.mediaType === PDF;
  return async (c: Context<ApiEnv>) => {
    const entry = await visibleEntry(ctx, c, isPdf);
    const id = entry.requestId;
    if (!isPdf(entry)) throw new LocalsignError('not_found', `${id} is a ${entry.kind} request: it has no PDF`, { type: 'not_found' });
    if (entry.status !== 'DONE') throw new LocalsignError('not_found', `${id} has no signed PDF: it is ${entry.status}`, { type: 'not_found' });
    const file = await ctx.documents.openResult(id);
    if (!file) throw new LocalsignError('internal', 'the signed document of this request is missing from the results folder');
    const warnings = entry.result?.warnings;
    const stamp = entry.result?.stamp;
    return c.body(Readable.toWeb(file.stream) as ReadableStream, 200, {
      'content-type': PDF,
      'content-length': String(file.size),
      'content-disposition': `attachment; filename="${id}.pdf"`,
      ...(Array.isArray(warnings) && warnings.length > 0 ? { [WARNINGS_HEADER.toLowerCase()]: asciiJson(warnings) } : {}),
      ...(stamp ? { [STAMP_HEADER.toLowerCase()]: asciiJson(stamp) } : {}),
    });
  };
}

/**
 * JSON for a header value: field values are ASCII in practice (RFC 9110 §5.5: anything else is
 * opaque data), and a warning may quote a signer's name in any script, so every character beyond
 * ASCII (and DEL) is written as its \\u escape; JSON.parse gives the text back.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function listResults(ctx: AppContext) {
  return (c: Context<ApiEnv>) => {
    const limit = parseLimit(c.req.queries('limit'), 50);
    const key = c.get('wrapper').key;
    // Newest first, creation order breaking ties: the store keeps creation order.
    const results: Record<string, unknown>[] = [];
    for (const e of ctx.requests.store.newestFirst()) {
      if (results.length >= limit) break;
      if (e.wrapperKey !== key) continue;
      results.push({
        request_id: e.requestId,
        status: e.status,
        kind: e.kind,
        credential_key: e.credentialKey,
        created_at: e.createdAt,
        completed_at: e.completedAt,
      });
    }
    return c.json({ results });
  };
}
