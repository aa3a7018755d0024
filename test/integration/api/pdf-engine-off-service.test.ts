import { afterAll, beforeAll, expect, it } from 'vitest';
import { credentialKeys, HASH_A, postJson, smallPdf, type Call } from '../../helpers/api-fixtures';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * The PDF engine (pdf-lib, fontkit and the stamp font: dist/localsign-vendor.cjs) runs in the PDF
 * worker processes only (issue 15). The service's own process signing a PAdES B-B document or an
 * EVM hash never loads it: once loaded, its 4.7 MB of source and its compiled code stay in the
 * service's heap for good (issue 18, idle RSS after load: one value import of a one-line helper
 * from `pades/sign` cost 70 MiB there). Seen from outside through Node's own module log
 * (NODE_DEBUG=module), line by line with the process that wrote it.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: Call;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-engine-off-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home, env: { NODE_DEBUG: 'module' } });
  call = authed(svc.url, creds);
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

/** The files the service's own process loaded, from its module log (a PDF worker's stderr is the pool's, not printed). */
function loadedBy(output: string, pid: number): string[] {
  return [...output.matchAll(/^MODULE (\d+): load "([^"]+)"/gm)].filter((m) => Number(m[1]) === pid).map((m) => m[2]!.replace(/^.*[\\/]/, ''));
}

it('signs a PAdES B-B document and an EVM hash without loading the PDF engine in the service process', async () => {
  const keys = await credentialKeys(call);
  const pdf = await smallPdf();
  const pades = (await (await postJson(call, '/v1/pades/sign', { pdf_base64: pdf.toString('base64'), credential_key: keys.pades[0], level: 'B-B' })).json()) as { request_id: string };
  expect(await waitForResult(call, pades.request_id)).toMatchObject({ status: 'DONE' });
  const evm = (await (await postJson(call, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: keys.evm[0], chain_id: 1 })).json()) as { request_id: string };
  expect(await waitForResult(call, evm.request_id)).toMatchObject({ status: 'DONE' });
  // The signed PDF served back, as a caller reads it.
  expect((await call(`/v1/results/${pades.request_id}/pdf`)).status).toBe(200);

  const loaded = loadedBy(svc.output(), svc.child.pid!);
  // The log is on: it names the service's own bundle.
  expect(loaded).toContain('localsign.cjs');
  expect(loaded).not.toContain('localsign-vendor.cjs');
}, 60_000);
