import type { Context } from 'hono';
import { InvalidInputError, LocalsignError } from '../../errors/errors';

/** Reads the raw body up to `limit` bytes; over it: 413 without reading the rest. */
export async function readBodyBytes(c: Context, limit: number): Promise<Buffer> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  const body = c.req.raw.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(limit: number): LocalsignError {
  return new LocalsignError('too_large', `request body is larger than the limit of ${limit} bytes (serve --max-body)`, { type: 'body_limit' });
}

/** CONTRACT: invalid JSON or a non-object body is 422. */
export async function readJsonObject(c: Context, limit: number): Promise<Record<string, unknown>> {
  const raw = await readBodyBytes(c, limit);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new InvalidInputError('request body must be valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError('request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
