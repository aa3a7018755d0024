// Corrupted PDFs (random bytes overwritten in a valid one) are either refused with 422 before the
// 202 or signed: CONTRACT "a bad PDF is a 422, never an async ERROR", and never a 5xx.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { CORPUS_DIR } from '../../helpers/pdf-corpus';
import { makeTmpHome } from '../../helpers/tmp-home';

describe('corrupted PDFs', () => {
  const home = makeTmpHome();
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let pades: string;

  beforeAll(async () => {
    const wrapper = initEmbeddedWithWrapper(home.home);
    service = await startServiceProcess({ home: home.home });
    call = authed(service.url, wrapper);
    const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string }[] }).credentials;
    pades = creds.find((c) => c.type === 'pades')!.credential_key;
  });
  afterAll(async () => {
    await service.stop();
    home.cleanup();
  });

  /** Signs `mutated` through the API: '422', '202/DONE' or '202/ERROR: message' (or a 5xx status). */
  async function outcomeOf(mutated: Buffer): Promise<string> {
    const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: mutated.toString('base64'), credential_key: pades }) });
    if (res.status !== 202) return String(res.status);
    const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
    return `202/${String(result.status)}${result.status === 'ERROR' ? `: ${String(result.error)}` : ''}`;
  }

  it('from every corpus producer (object streams, hybrid, signed, linearized …) are a 422 or DONE', async () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const outcomes: Record<string, number> = {};
    for (const name of readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.pdf')).sort()) {
      const base = readFileSync(join(CORPUS_DIR, name));
      for (let i = 0; i < 25; i += 1) {
        const mutated = Buffer.from(base);
        for (let k = 0, n = 1 + Math.floor(random() * 3); k < n; k += 1) mutated[5 + Math.floor(random() * (mutated.length - 5))] = Math.floor(random() * 256);
        const outcome = await outcomeOf(mutated);
        const key = outcome === '422' || outcome === '202/DONE' ? outcome : `${outcome} (${name})`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
    }
    expect(Object.keys(outcomes).sort(), JSON.stringify(outcomes)).toEqual(['202/DONE', '422']);
  });

  it('are a 422 or DONE, never an async ERROR or a 5xx (120 seeded mutations)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('fuzz', { font: await doc.embedFont(StandardFonts.Helvetica) });
    const base = Buffer.from(await doc.save({ useObjectStreams: false }));
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 120; i += 1) {
      const mutated = Buffer.from(base);
      for (let k = 0, n = 1 + Math.floor(random() * 4); k < n; k += 1) mutated[5 + Math.floor(random() * (mutated.length - 5))] = Math.floor(random() * 256);
      const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: mutated.toString('base64'), credential_key: pades }) });
      let outcome = String(res.status);
      if (res.status === 202) {
        const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
        outcome += `/${String(result.status)}${result.status === 'ERROR' ? `: ${String(result.error)}` : ''}`;
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    expect(Object.keys(outcomes).sort(), JSON.stringify(outcomes)).toEqual(['202/DONE', '422']);
  });
});
