import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, postJson } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * One application cannot fill the disk for everyone (serve --disk-quota): its results and its last
 * 24 hours of audit records count against its own quota; beyond it, its new sign requests get 429
 * with Retry-After, other applications sign on, and the count survives a restart.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let aCreds: { key: string; secret: string };
let bCreds: { key: string; secret: string };
let pades: string;

/** A PDF of about `kb` KB (an unreferenced stream of filler) that signs in a moment. */
function paddedPdf(kb: number): Buffer {
  const filler = 'x'.repeat(kb * 1024);
  const head = '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] >>\nendobj\n';
  const stream = `4 0 obj\n<< /Length ${filler.length} >>\nstream\n${filler}\nendstream\nendobj\n`;
  const offsets = [9, head.indexOf('2 0 obj'), head.indexOf('3 0 obj'), head.length];
  const xref = `xref\n0 5\n0000000000 65535 f\r\n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n\r\n`).join('')}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${head.length + stream.length}\n%%EOF\n`;
  return Buffer.from(head + stream + xref, 'latin1');
}

beforeAll(async () => {
  tmp = makeTmpHome('localsign-quota-');
  aCreds = initEmbeddedWithWrapper(tmp.home);
  bCreds = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json', '--name', 'B'], { home: tmp.home }));
  svc = await startServiceProcess({ home: tmp.home, args: ['--disk-quota', '1'] });
  pades = (await credentialKeys(authed(svc.url, aCreds))).pades[0]!;
});
afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const sign = (creds: { key: string; secret: string }, pdf: Buffer) => postJson(authed(svc.url, creds), '/v1/pades/sign', { pdf_base64: pdf.toString('base64'), credential_key: pades });

describe('a disk quota per application', () => {
  it('beyond 1 MiB of results the application gets 429 with Retry-After; another signs on; a restart keeps the count', async () => {
    const pdf = paddedPdf(400);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await sign(aCreds, pdf);
      statuses.push(r.status);
      if (r.status !== 202) {
        expect(r.headers.get('retry-after')).toBe('600');
        expect(((await r.json()) as { error: string }).error).toMatch(/^this application key holds 1 MiB of results and of the last 24 hours' audit records, its disk quota is 1 MiB \(serve --disk-quota\)/);
        break;
      }
      expect((await waitForResult(authed(svc.url, aCreds), ((await r.json()) as { request_id: string }).request_id)).status).toBe('DONE');
    }
    expect(statuses).toEqual([202, 202, 202, 429]);
    const b = await sign(bCreds, pdf);
    expect(b.status).toBe(202);
    await svc.stop();
    svc = await startServiceProcess({ home: tmp.home, args: ['--disk-quota', '1'] });
    expect((await sign(aCreds, pdf)).status).toBe(429);
  });
});
