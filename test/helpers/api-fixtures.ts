import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { expect } from 'vitest';
import type { authed } from './service-process';

/** Shapes the CONTRACT states exactly. */
export const ERROR_ID = /^err_[A-Za-z0-9_-]+$/;
export const REQUEST_ID = /^req_[A-Za-z0-9_-]+$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The one 401 message (CONTRACT: "the same 401 for an unknown key and a wrong secret"). */
export const AUTH_MESSAGE = 'missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)';

export type Call = ReturnType<typeof authed>;

/** A one-page PDF made with pdf-lib (classic xref table, so every checker reads it). */
export async function smallPdf(text = 'localsign API test'): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 200]);
  page.drawText(text, { x: 20, y: 150, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** POST a JSON value, or a raw string body as it is. */
export function postJson(call: Call, path: string, body: unknown, raw = false): Promise<Response> {
  return call(path, { method: 'POST', body: raw ? (body as string) : JSON.stringify(body) });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown>;
}

/**
 * node:http rather than fetch: Host and Origin are set exactly as a DNS-rebinding page or a
 * cross-origin caller would send them, and the body can be streamed chunked.
 */
export function rawRequest(
  base: string,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer; chunks?: (string | Buffer)[] },
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: o.method ?? 'GET', path: o.path, headers: o.headers ?? {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    if (o.chunks) for (const c of o.chunks) req.write(c);
    else if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/**
 * Bytes on a socket, for what node:http will not send: no Host header at all (HTTP/1.0), or an
 * absolute-form request-target (RFC 9112 §3.2.2: its authority replaces the Host header).
 */
export function socketRequest(port: number, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => sock.write(head));
    let out = '';
    sock.setEncoding('utf8');
    sock.on('data', (d) => (out += d));
    sock.on('error', reject);
    sock.on('end', () => {
      const [headText = '', text = ''] = out.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text, json: () => JSON.parse(text) as Record<string, unknown> });
    });
  });
}

interface ErrorRecordLine {
  error_id: string;
  short: string;
  status: number | null;
  request_id: string | null;
  wrapper_key: string | null;
  traceback: string;
}

export function readErrorsJsonl(home: string): ErrorRecordLine[] {
  return readFileSync(join(home, 'errors.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ErrorRecordLine);
}

/**
 * The CONTRACT failure shape: exactly `{error, error_id}`, JSON, stored in errors.jsonl with a
 * traceback, and listed by GET /v1/errors (read with `reader`, a valid wrapper) exactly when the
 * failure was the reader's own: records with no authenticated application (a 401, a Host or
 * Origin 403, a route that did not match) are in errors.jsonl only, with no request id (CONTRACT).
 * `owner: 'other'` says the call was made with another application's key than the reader's.
 */
export async function expectErrorRecorded(
  got: { status: number; body: unknown; contentType: string | null | undefined },
  status: number,
  message: string | RegExp,
  where: { home: string; reader: Call; requestId?: string | null; owner?: 'other' },
): Promise<string> {
  expect(got.status).toBe(status);
  expect(got.contentType).toMatch(/^application\/json/);
  const body = got.body as { error: string; error_id: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'error_id']);
  if (typeof message === 'string') expect(body.error).toBe(message);
  else expect(body.error).toMatch(message);
  expect(body.error_id).toMatch(ERROR_ID);

  const line = readErrorsJsonl(where.home).find((r) => r.error_id === body.error_id);
  expect(line, `${body.error_id} in errors.jsonl`).toBeDefined();
  expect(line).toHaveProperty('wrapper_key');
  const listed = (await (await where.reader('/v1/errors?limit=1000')).json()) as { errors: Record<string, unknown>[] };
  const summary = listed.errors.find((e) => e.error_id === body.error_id);
  if (line!.wrapper_key === null || where.owner === 'other') {
    expect(summary, `${body.error_id} must not be in the reader's GET /v1/errors`).toBeUndefined();
    if (line!.wrapper_key === null) expect(line!.request_id).toBeNull();
  } else {
    expect(summary, `${body.error_id} in GET /v1/errors`).toBeDefined();
    expect(summary).toMatchObject({ short: body.error, status, request_id: where.requestId ?? null });
    expect(Object.keys(summary!).sort()).toEqual(['error_id', 'request_id', 'short', 'status', 'ts', 'type']);
    expect(summary!.ts).toMatch(ISO_UTC);
  }
  expect(line!.status).toBe(status);
  expect(line!.short).toBe(body.error);
  // A traceback: the error's name and message, then "at …" frames.
  expect(line!.traceback).toMatch(/Error: [^\n]+\n\s+at /);
  // spec §7: the same detail, human-readable, in errors.log.
  expect(readFileSync(join(where.home, 'errors.log'), 'utf8')).toContain(` ${body.error_id} `);
  return body.error_id;
}

/** expectErrorRecorded for a fetch Response. */
export async function expectError(res: Response, status: number, message: string | RegExp, where: { home: string; reader: Call; requestId?: string | null; owner?: 'other' }): Promise<string> {
  const body: unknown = await res.json();
  return expectErrorRecorded({ status: res.status, body, contentType: res.headers.get('content-type') }, status, message, where);
}

/** expectErrorRecorded for a rawRequest response. */
export function expectRawError(res: RawResponse, status: number, message: string | RegExp, where: { home: string; reader: Call }): Promise<string> {
  return expectErrorRecorded({ status: res.status, body: res.json(), contentType: res.headers['content-type'] as string | undefined }, status, message, where);
}

/** Credential keys by type, as GET /v1/credentials lists them. */
export async function credentialKeys(call: Call): Promise<{ pades: string[]; evm: string[]; all: Record<string, unknown>[] }> {
  const body = (await (await call('/v1/credentials')).json()) as { credentials: Record<string, unknown>[] };
  return {
    pades: body.credentials.filter((c) => c.type === 'pades').map((c) => c.credential_key as string),
    evm: body.credentials.filter((c) => c.type === 'evm').map((c) => c.credential_key as string),
    all: body.credentials,
  };
}

export const HASH_A = '0x' + 'ab'.repeat(32);
