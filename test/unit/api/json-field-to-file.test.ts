import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonFieldToFile } from '../../../src/api/json-field-to-file';

const dir = mkdtempSync(join(tmpdir(), 'json-field-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The body through the sink in pieces cut at `cuts`; the file's bytes when it was written to. */
async function stream(body: Buffer, cuts: number[] = [], stageChars = 8) {
  const path = join(dir, `f${(n += 1)}`);
  const sink = new JsonFieldToFile('pdf_base64', path, stageChars);
  sink.bind(
    (e) => {
      throw e;
    },
    () => undefined,
  );
  let at = 0;
  for (const cut of [...new Set(cuts)].filter((c) => c > 0 && c < body.length).sort((a, b) => a - b)) {
    sink.chunk(body.subarray(at, cut));
    at = cut;
  }
  sink.chunk(body.subarray(at));
  const r = await sink.end();
  return { ...r, bytes: r.file ? readFileSync(path) : null };
}

const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size, 0xfb)]);
const b64 = (bytes: Buffer) => bytes.toString('base64');

describe('JsonFieldToFile', () => {
  it('decodes a canonical member into the file and keeps the rest of the body', async () => {
    const doc = pdf(1000);
    const body = Buffer.from(` {"credential_key":"k","variables":{"a":"}\\"pdf_base64\\":\\""},"pdf_base64" : "${b64(doc)}","x":[1,{"pdf_base64":"]"}]} `);
    const r = await stream(body, [3, 40, 70, 71, 72, 300, body.length - 20]);
    expect(r.bytes).toEqual(doc);
    expect(r.file).toEqual({ length: doc.length });
    expect(JSON.parse(r.rest.toString())).toEqual({ ...JSON.parse(body.toString()), pdf_base64: '' });
  });

  it.each([
    ['line breaks (a MIME layout the tolerance rules repair)', (t: string) => t.slice(0, 76) + '\\n' + t.slice(76)],
    ['a late line break', (t: string) => t.slice(0, 600) + '\\r\\n' + t.slice(600)],
    ['an escaped solidus, as PHP writes it', (t: string) => t.replace('/', '\\/')],
    ['a URL-safe character', (t: string) => t.slice(0, 500) + '-' + t.slice(501)],
    ['padding inside the data', (t: string) => t.slice(0, 400) + '=' + t.slice(401)],
    ['a length that is not a multiple of 4', (t: string) => t.slice(0, -1)],
    ['a data: prefix', (t: string) => 'data:application/pdf;base64,' + t],
    ['base64 of something else than a PDF', () => b64(Buffer.alloc(900, 1))],
    ['an empty string', () => ''],
    ['padding only', () => '===='],
    ['non-canonical last bits before the padding', () => b64(pdf(1000)).slice(0, -2) + 'B='],
    // A padded group that ends a step of 8 characters (the step, not the member): "JVBERi0=" alone decodes to "%PDF-".
    ['padding that ends a group inside the data', (t: string) => t.slice(0, 7) + '=' + t.slice(8)],
  ])('keeps the body whole, byte for byte, for %s', async (_, change) => {
    const text = change(b64(pdf(1000)));
    const body = Buffer.from(`{"credential_key":"k","pdf_base64":"${text}","reason":"r"}`);
    for (const cuts of [[], [20, 41, 500, 700], [37, 38, 39, 40, 41]]) {
      const r = await stream(body, cuts);
      expect(r.file).toBeNull();
      expect(r.rest.equals(body)).toBe(true);
    }
  });

  it.each([
    ['a member given twice', `{"pdf_base64":"${b64(pdf(30))}","pdf_base64":"x"}`],
    ['a member that is not a string', '{"pdf_base64":5,"credential_key":"k"}'],
    ['a top-level array', `[{"pdf_base64":"${b64(pdf(30))}"}]`],
    ['a nested member only', `{"a":{"pdf_base64":"${b64(pdf(30))}"}}`],
    ['an unterminated member', `{"pdf_base64":"${b64(pdf(30))}`],
    ['trailing text after the object', `{"x":1} {"pdf_base64":"${b64(pdf(30))}"}`],
  ])('leaves %s to JSON.parse, byte for byte', async (_, json) => {
    const body = Buffer.from(json);
    const r = await stream(body, [5, 17, 18]);
    expect(r.file).toBeNull();
    expect(r.rest.equals(body)).toBe(true);
  });

  it('takes an escaped key for the member, as JSON.parse does', async () => {
    const doc = pdf(100);
    const r = await stream(Buffer.from(`{"pdf\\u005fbase64":"${b64(doc)}"}`), [4, 9]);
    expect(r.bytes).toEqual(doc);
    expect(JSON.parse(r.rest.toString())).toEqual({ pdf_base64: '' });
  });

  it('agrees with JSON.parse for any body and any cut (property)', async () => {
    const member = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map((size) => b64(pdf(size))),
      fc.tuple(fc.integer({ min: 0, max: 300 }), fc.nat(), fc.constantFrom('\n', '-', '_', '=', ' ', '\\/', '\\u0041', 'é')).map(([size, at, c]) => {
        const t = b64(pdf(size));
        const i = at % (t.length + 1);
        return t.slice(0, i) + c + t.slice(i);
      }),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), member, fc.boolean(), fc.array(fc.nat(), { maxLength: 6 }), fc.constantFrom(4, 8, 64), async (others, text, first, cuts, stageChars) => {
        // `text` is put in raw (its escapes are JSON's), so the body may be invalid JSON.
        const rest = JSON.stringify(others).slice(1, -1);
        const memberText = `"pdf_base64":"${text}"`;
        const inner = first ? [memberText, rest] : [rest, memberText];
        const body = Buffer.from(`{${inner.filter((x) => x !== '').join(',')}}`);
        const r = await stream(body, cuts.map((c) => c % (body.length + 1)), stageChars);
        if (r.file === null) {
          expect(r.rest.equals(body)).toBe(true);
          return;
        }
        const parsed = JSON.parse(body.toString()) as Record<string, unknown>;
        expect(typeof parsed.pdf_base64).toBe('string');
        expect(/^[A-Za-z0-9+/]*={0,2}$/.test(parsed.pdf_base64 as string) && (parsed.pdf_base64 as string).length % 4 === 0).toBe(true);
        expect(r.bytes!.equals(Buffer.from(parsed.pdf_base64 as string, 'base64'))).toBe(true);
        expect(r.bytes!.subarray(0, 5).toString()).toBe('%PDF-');
        expect(JSON.parse(r.rest.toString())).toEqual({ ...parsed, pdf_base64: '' });
      }),
      { numRuns: 1000 },
    );
  });
});
