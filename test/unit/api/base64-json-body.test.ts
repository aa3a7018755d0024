import fc from 'fast-check';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { base64JsonBody } from '../../../src/api/routes/results';

async function text(stream: ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(piece));
  return Buffer.concat(parts).toString('latin1');
}

describe('base64JsonBody (GET /v1/results/{id} of a document)', () => {
  it('streams the JSON that JSON.stringify writes, its announced length exact, however the file arrives (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat({ max: 200 }), { maxLength: 8 }), async (bytes, cuts) => {
        const doc = Buffer.from(bytes);
        const at = [...new Set(cuts.map((c) => c % (doc.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, i) => doc.subarray(from, at[i] ?? doc.length));
        const head = JSON.stringify({ request_id: 'req_1', status: 'DONE' }).slice(0, -1);
        const body = base64JsonBody(head, 'pdf_base64', { size: doc.length, stream: Readable.from(chunks) });
        const got = await text(body.stream);
        expect(got).toBe(JSON.stringify({ request_id: 'req_1', status: 'DONE', pdf_base64: doc.toString('base64') }));
        expect(body.length).toBe(got.length);
      }),
      { numRuns: 300 },
    );
  });
});
