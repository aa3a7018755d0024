import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { LocalsignError } from '../../errors/errors';
import type { RequestEntry } from '../../store/request-store';
import type { ApiEnv } from '../types';
import { parseLimit, parseWait } from '../validate';

/**
 * A request is visible only to the application key that made it: another key gets the same 404
 * as an unknown id, so ids leak nothing across applications.
 */
function visible(entry: RequestEntry | undefined, wrapperKey: string): entry is RequestEntry {
  return entry !== undefined && entry.wrapper_key === wrapperKey;
}

/**
 * The caller's request `request_id`, after `?wait=N`: a long poll holds a PENDING answer up to N
 * seconds, so a client needs one request per result instead of a polling loop (each poll costs
 * the service a full HTTP exchange).
 */
async function visibleEntry(ctx: AppContext, c: Context<ApiEnv>, kind?: RequestEntry['kind']): Promise<RequestEntry> {
  const id = c.req.param('request_id') ?? '';
  const wait = parseWait(c.req.queries('wait'));
  const entry = ctx.requests.store.get(id);
  if (!visible(entry, c.get('wrapper').key)) {
    throw new LocalsignError('not_found', `no request ${id.slice(0, 64)}`, { type: 'not_found' });
  }
  // A request of another kind than the route serves answers at once (nothing to wait for).
  if (entry.status !== 'PENDING' || wait === 0 || (kind !== undefined && entry.kind !== kind)) return entry;
  await ctx.requests.registry.waitForFinal(id, wait * 1000);
  return ctx.requests.store.get(id) ?? entry;
}

export function getResult(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const entry = await visibleEntry(ctx, c);
    const body: Record<string, unknown> = { request_id: entry.request_id, status: entry.status };
    if (entry.status === 'ERROR') {
      body.error = entry.error;
      body.error_id = entry.error_id;
    } else if (entry.status === 'DONE') {
      if (entry.kind === 'pades') {
        const pdf = await ctx.documents.readResult(entry.request_id);
        if (!pdf) throw new LocalsignError('internal', 'the signed document of this request is missing from the results folder');
        // CONTRACT: a PAdES result may add `warnings` (for example a stamp moved to free space).
        const warnings = entry.result?.warnings;
        if (Array.isArray(warnings) && warnings.length > 0) body.warnings = warnings;
        // Base64 needs no JSON escaping: append it to the serialised head instead of letting
        // JSON.stringify scan and copy a string of 4/3 the document's size once more.
        const head = JSON.stringify(body).slice(0, -1);
        return c.body(`${head},"pdf_base64":"${pdf.toString('base64')}"}`, 200, { 'content-type': 'application/json' });
      } else {
        Object.assign(body, entry.result);
      }
    }
    return c.json(body);
  };
}

/**
 * GET /v1/results/{id}/pdf (CONTRACT extension): the signed PDF as `application/pdf`, streamed from
 * disk; 404 until the request is DONE (and for a blockchain request, which has no PDF). `?wait=N`
 * waits for a PENDING request first: a client of the raw transport gets its document in one call,
 * without the 4/3-size base64 copy GET /v1/results/{id} carries.
 */
export function getResultPdf(ctx: AppContext) {
  return async (c: Context<ApiEnv>) => {
    const entry = await visibleEntry(ctx, c, 'pades');
    const id = entry.request_id;
    if (entry.kind !== 'pades') throw new LocalsignError('not_found', `${id} is a blockchain request: it has no PDF`, { type: 'not_found' });
    if (entry.status !== 'DONE') throw new LocalsignError('not_found', `${id} has no signed PDF: it is ${entry.status}`, { type: 'not_found' });
    const file = await ctx.documents.openResult(id);
    if (!file) throw new LocalsignError('internal', 'the signed document of this request is missing from the results folder');
    return c.body(Readable.toWeb(file.stream) as ReadableStream, 200, {
      'content-type': 'application/pdf',
      'content-length': String(file.size),
      'content-disposition': `attachment; filename="${id}.pdf"`,
    });
  };
}

export function listResults(ctx: AppContext) {
  return (c: Context<ApiEnv>) => {
    const limit = parseLimit(c.req.queries('limit'), 50);
    const key = c.get('wrapper').key;
    // Newest first, creation order breaking ties: the store keeps creation order.
    const results: Record<string, unknown>[] = [];
    for (const e of ctx.requests.store.newestFirst()) {
      if (results.length >= limit) break;
      if (e.wrapper_key !== key) continue;
      results.push({
        request_id: e.request_id,
        status: e.status,
        kind: e.kind,
        credential_key: e.credential_key,
        created_at: e.created_at,
        completed_at: e.completed_at,
      });
    }
    return c.json({ results });
  };
}
