import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallPdf } from '../../helpers/api-fixtures';
import { createNssTrustDb, extractCms, runPdfsig } from '../../helpers/pdf-tools';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

interface Credential {
  credential_key: string;
  type: string;
  certificate_chain?: string[];
}

/**
 * Issue 7 item 5: a verifier that trusts our root (pdfsig with an NSS database) trusts every
 * signature, also a later one by the same signer. An earlier CMS that carried the self-signed
 * root made NSS distrust the second ("Unknown issue with Certificate or corrupted data").
 */
describe('signatures a verifier trusting the root trusts, however many by one signer', () => {
  const home = makeTmpHome();
  let svc: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let pades: Credential[];

  beforeAll(async () => {
    const wrapper = initEmbeddedWithWrapper(home.home);
    svc = await startServiceProcess({ home: home.home });
    call = authed(svc.url, wrapper);
    pades = ((await (await call('/v1/credentials')).json()) as { credentials: Credential[] }).credentials.filter((c) => c.type === 'pades');
  });
  afterAll(async () => {
    await svc?.stop();
    home.cleanup();
  });

  async function sign(pdf: Buffer, credentialKey: string): Promise<Buffer> {
    const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: pdf.toString('base64'), credential_key: credentialKey, signer_name: 'Trust Test' }) });
    expect(res.status, await res.clone().text()).toBe(202);
    const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
    expect(result.status, JSON.stringify(result)).toBe('DONE');
    return Buffer.from(String(result.pdf_base64), 'base64');
  }

  it('three signatures by one credential and one by another: all valid and trusted', async () => {
    expect(pades.length).toBeGreaterThanOrEqual(2);
    const [first, second] = pades as [Credential, Credential];
    // CONTRACT: certificate_chain keeps the root, last: the anchor a verifier needs.
    const roots = [...new Set(pades.map((c) => c.certificate_chain!.at(-1)!))].map((b64) => Buffer.from(b64, 'base64'));
    let pdf = await smallPdf('trusted chain');
    for (const key of [first.credential_key, first.credential_key, first.credential_key, second.credential_key]) pdf = await sign(pdf, key);
    const dir = mkdtempSync(join(home.home, 'nss-'));
    const file = join(dir, 'signed-4x.pdf');
    writeFileSync(file, pdf);
    const nssDir = await createNssTrustDb(dir, roots);
    const report = await runPdfsig(file, { nssDir });
    expect(report.signatures, report.raw).toHaveLength(4);
    for (const s of report.signatures) {
      expect(s.validation, report.raw).toBe('Signature is Valid.');
      expect(s.certificateStatus, report.raw).toBe('Certificate is Trusted.');
    }
    // And the CMS of each carries no self-signed certificate (the root stays out).
    const rootsHex = roots.map((r) => r.toString('hex'));
    for (let i = 0; i < 4; i += 1) {
      const der = Buffer.from(extractCms(pdf, i).cms).toString('hex');
      for (const root of rootsHex) expect(der.includes(root)).toBe(false);
    }
  });
});
