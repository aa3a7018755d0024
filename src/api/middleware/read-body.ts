import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import { asStorageError } from '../../store/storage-error';
import type { Base64Bytes } from '../base64-repair';
import { DecodedUpload } from '../base64-to-file';
import type { Context } from 'hono';
import { InvalidInputError, LocalsignError } from '../../domain/errors';
import { destroyed, JsonFieldToFile, type JsonFieldResult } from '../json-field-to-file';
import { splitLargeStringField } from '../json-large-field';
import type { BodyShare } from './body-memory';

/**
 * Reads the raw body up to `limit` bytes; over it: 413 without reading the rest. Under
 * @hono/node-server the Node request stream is read directly: touching `c.req.raw.body` makes the
 * adapter build a WHATWG Request, which took a third of the event loop's time per sign request
 * in a CPU profile under load. The body takes `weight` times its bytes of the request's share of
 * the body memory budget (body-memory.ts): its declared length before the first byte is read,
 * else chunk by chunk; a JSON body weighs 2 (the base64 text, then the document it decodes to).
 */
export async function readBodyBytes(c: Context, limit: number, weight = 1): Promise<Buffer> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limit) throw tooLarge(limit);
  const share = c.get('bodyShare') as BodyShare | undefined;
  const length = declared === undefined ? null : Number(declared);
  if (share && length !== null && Number.isSafeInteger(length)) share.add(length * weight);
  // Without a declared length the bytes are taken as they arrive.
  const take = share && length === null ? (n: number) => share.add(n * weight) : undefined;
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const idleMs = (c.get('bodyTimeoutMs') as number | undefined) ?? 0;
  if (incoming && typeof incoming.on === 'function') return readNodeStream(incoming, limit, length, idleMs, take);
  const body = c.req.raw.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    take?.(value.byteLength);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** Reads `incoming` to its end into one buffer, with consumeBody's limits. */
function readNodeStream(incoming: IncomingMessage, limit: number, declared: number | null, idleMs: number, take?: (bytes: number) => void): Promise<Buffer> {
  // With a Content-Length, chunks are copied into one buffer as they arrive: collecting them and
  // concatenating at the end held a 100 MB body twice.
  const whole = declared !== null && Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  return consumeBody(incoming, { limit, most: whole?.length ?? Infinity, declared, idleMs }, {
    chunk: (chunk) => {
      take?.(chunk.length);
      if (whole) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
    },
    end: () => (whole ? whole.subarray(0, size) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)),
  });
}

/**
 * A large JSON body whose `name` member is decoded into `path` as it arrives (json-field-to-file.ts):
 * `rest` is the body without that member's characters when `file` is set, else the whole body.
 * It takes its share of the body memory as any JSON body does, twice its declared length before
 * its first byte (operators.md, --max-body-memory): whether it is held whole is known only later.
 * With no Node request underneath (tests of the app alone), the whole body is read.
 */
export async function readJsonFieldToFile(c: Context, limit: number, name: string, path: string): Promise<JsonFieldResult> {
  const declared = Number(c.req.header('content-length'));
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!Number.isSafeInteger(declared) || declared < 0 || !incoming || typeof incoming.on !== 'function') return { rest: await readBodyBytes(c, limit, 2), file: null };
  if (declared > limit) throw tooLarge(limit);
  (c.get('bodyShare') as BodyShare | undefined)?.add(declared * 2);
  const sink = new JsonFieldToFile(name, path);
  const idleMs = (c.get('bodyTimeoutMs') as number | undefined) ?? 0;
  return consumeBody(incoming, { limit, most: declared, declared, idleMs }, {
    bind: (fail) =>
      sink.bind(fail, (resume) => {
        // The disk sets the pace: the socket is read again once the file has taken what it has.
        incoming.pause();
        void resume.then(() => incoming.resume());
      }),
    chunk: (chunk) => sink.chunk(chunk),
    end: () => sink.end(),
    cancel: () => sink.cancel(),
  });
}

/** Where a body goes as it is read (consumeBody): each chunk, then its end; `cancel` on a refusal or an abort. */
interface BodySink<T> {
  chunk(chunk: Buffer): void;
  end(): T | Promise<T>;
  cancel?(): Promise<void>;
}

/**
 * The one reading of a request body, for both readers (in memory, to a file): over `limit` or
 * over `most` (a declared Content-Length): 413 without reading the rest; no data for `idleMs`
 * (0: no limit): 408, so a client that trickles its body or stops in the middle holds only its own
 * connection, and only that long (abuse: slow clients). Either way the request is never
 * destroyed (that stalls Node's parser on the unread rest and a client still writing is never
 * read again): our listeners go and the stream keeps flowing with none, which
 * drops the rest. A client that goes away mid-upload ("aborted", ECONNRESET) is no fault of ours:
 * said as what it is, not recorded as a 500 internal error. `fail` lets a sink end
 * the reading with its own error (a disk that refuses a write).
 */
function consumeBody<T>(incoming: IncomingMessage, o: { limit: number; most: number; declared: number | null; idleMs: number }, sink: BodySink<T> & { bind?(fail: (error: Error) => void): void }): Promise<T> {
  let size = 0;
  return new Promise<T>((resolve, reject) => {
    const timer = o.idleMs > 0 ? setTimeout(() => stop(tooSlow(o.idleMs), true), o.idleMs) : null;
    let stopped = false;
    const stop = (error: Error | null, drain = false) => {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAbort);
      incoming.off('close', onAbort);
      if (!error) return;
      if (drain) incoming.resume();
      void (sink.cancel?.() ?? Promise.resolve()).then(() => reject(error));
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > o.limit || size + chunk.length > o.most) return stop(tooLarge(o.limit), true);
      timer?.refresh();
      size += chunk.length;
      try {
        sink.chunk(chunk);
      } catch (error) {
        // A body over the memory budget while it arrives (no declared length): answered, the rest dropped.
        stop(error as Error, true);
      }
    };
    const onEnd = () => {
      stop(null);
      Promise.resolve()
        .then(() => sink.end())
        .then(resolve, reject);
    };
    const onAbort = () => stop(clientAborted(size, o.declared));
    sink.bind?.((error) => stop(error, true));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onAbort);
    incoming.on('close', onAbort);
  });
}

/**
 * The raw transport's large body (the 100 MB path), written to `path` as it arrives
 * instead of held in memory: the service's peak no longer holds the document, and the PDF workers
 * and the document store take the file itself (DocumentStore.admit adopts it: synced and renamed,
 * not copied). Also a body without a Content-Length (chunked), whatever its size: it is never held
 * in memory. Read by consumeBody, as readNodeStream is. `head` holds the first 1,024 bytes (the header check
 * and its preview). On any failure the file is the caller's to remove.
 */
export async function readBodyToFile(c: Context, limit: number, path: string): Promise<{ length: number; head: Buffer }> {
  const header = c.req.header('content-length');
  const declared = header === undefined ? null : Number(header);
  if (declared !== null && (!Number.isSafeInteger(declared) || declared < 0)) throw new Error('readBodyToFile: an unreadable Content-Length');
  if (declared !== null && declared > limit) throw tooLarge(limit);
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const idleMs = (c.get('bodyTimeoutMs') as number | undefined) ?? 0;
  if (!incoming || typeof incoming.on !== 'function') {
    // Not under @hono/node-server (tests of the app alone): read, then write.
    const bytes = await readBodyBytes(c, limit);
    await writeFile(path, bytes, { mode: 0o600 }).catch((error: unknown) => Promise.reject(asStorageError(error, path)));
    return { length: bytes.length, head: bytes.subarray(0, HEAD_BYTES) };
  }
  const out = createWriteStream(path, { mode: 0o600 });
  const head: Buffer[] = [];
  let headSize = 0;
  let size = 0;
  return consumeBody(incoming, { limit, most: declared ?? Infinity, declared, idleMs }, {
    bind: (fail) => void out.on('error', (error) => fail(asStorageError(error, path) as Error)),
    chunk: (chunk) => {
      if (headSize < HEAD_BYTES) {
        head.push(chunk.subarray(0, HEAD_BYTES - headSize));
        headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
      }
      size += chunk.length;
      // The disk sets the pace: the socket is read again once the file has taken what it has.
      if (!out.write(chunk)) {
        incoming.pause();
        out.once('drain', () => incoming.resume());
      }
    },
    // The last writes may still fail (a full disk): the body is taken only once all are on disk.
    end: async () => {
      out.end();
      await finished(out).catch((error: unknown) => Promise.reject(asStorageError(error, path)));
      return { length: size, head: Buffer.concat(head, headSize) };
    },
    // The file is closed before the caller removes it.
    cancel: () => destroyed(out),
  });
}

const HEAD_BYTES = 1024;

/** The client closed its connection before the body it announced had arrived. */
export const CLIENT_ABORTED = 'client_aborted';
function clientAborted(received: number, declared: number | null): LocalsignError {
  const of = declared === null ? '' : ` of ${declared}`;
  return new LocalsignError('bad_request', `the client closed the connection during its upload (${received}${of} bytes received)`, { type: CLIENT_ABORTED });
}

function tooSlow(idleMs: number): LocalsignError {
  return new LocalsignError('request_timeout', `the request body stopped arriving: no data for ${idleMs / 1000} s (serve --body-timeout)`, { type: 'timeout' });
}

function tooLarge(limit: number): LocalsignError {
  return new LocalsignError('too_large', `request body is larger than the limit of ${limit} bytes (serve --max-body)`, { type: 'body_limit' });
}

/**
 * CONTRACT: invalid JSON or a non-object body is 422. With `largeString`, that top-level string
 * member is taken from the raw bytes without parsing it into a JS string (see
 * json-large-field.ts) and handed to the base64 decoder as those bytes (Base64Bytes).
 */
export async function readJsonObject(c: Context, limit: number, largeString?: string): Promise<Record<string, unknown>> {
  return parseJsonObject(await readBodyBytes(c, limit, largeString ? 2 : 1), largeString);
}

/**
 * readJsonObject with the `largeString` member decoded into `path` as the body arrives, when it
 * is canonical base64 of a PDF (json-field-to-file.ts): the member is then a DecodedUpload.
 */
export async function readJsonObjectToFile(c: Context, limit: number, largeString: string, path: string): Promise<Record<string, unknown>> {
  const { rest, file } = await readJsonFieldToFile(c, limit, largeString, path);
  if (!file) return parseJsonObject(rest, largeString);
  const value = await parseJsonObject(rest);
  value[largeString] = new DecodedUpload({ $file: path, length: file.length });
  return value;
}

/** The body as a JSON object (422 otherwise); a large `largeString` member as Base64Bytes. */
async function parseJsonObject(body: Buffer, largeString?: string): Promise<Record<string, unknown>> {
  let raw = body;
  let large: Base64Bytes | null = null;
  if (largeString && raw.length > 1024 * 1024) {
    const split = await splitLargeStringField(raw, largeString);
    if (split) {
      large = split.value;
      raw = split.rest;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new InvalidInputError('request body must be valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidInputError('request body must be a JSON object');
  }
  if (large !== null) (value as Record<string, unknown>)[largeString!] = large;
  return value as Record<string, unknown>;
}
