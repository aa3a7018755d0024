import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertTestBuild } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { PDF_B64, readCatalog, txHashOf } from './_load';

/**
 * Issue 10, hardening: a crash between a DONE's audit record and the DONE itself leaves the
 * request PENDING; it is signed again after the restart, and audit.jsonl must still hold one DONE
 * record for it, not two. The crash is provoked with the test-only LOCALSIGN_TEST_FAULT=kill-after-audit.
 */
const tmp = makeTmpHome('localsign-audit-once-');
let svc: ServiceProcess | undefined;
let creds: { key: string; secret: string };
beforeAll(() => {
  assertTestBuild();
  creds = initEmbeddedWithWrapper(tmp.home);
});
afterAll(async () => {
  await svc?.stop();
  tmp.cleanup();
});

function auditLines(): { request_id: string; outcome: string }[] {
  return readFileSync(join(tmp.home, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { request_id: string; outcome: string });
}

function createdIds(): string[] {
  return readFileSync(join(tmp.home, 'requests.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => {
      const r = JSON.parse(l) as { t: string; e?: { request_id: string } };
      return r.t === 'c' && r.e ? [r.e.request_id] : [];
    });
}

describe.each(['blockchain', 'pades'] as const)('a %s request killed after its audit record', (kind) => {
  it('is DONE after the restart with exactly one DONE audit record', async () => {
    svc = await startServiceProcess({ home: tmp.home, env: { LOCALSIGN_TEST_FAULT: 'kill-after-audit' } });
    let call = authed(svc.url, creds);
    const catalog = await readCatalog(call);
    const body =
      kind === 'blockchain'
        ? { path: '/v1/blockchain/sign', json: { tx_hash: `0x${txHashOf(7)}`, credential_key: catalog.evm.credential_key, chain_id: 1 } }
        : { path: '/v1/pades/sign', json: { pdf_base64: PDF_B64, credential_key: catalog.pades[0]!.credential_key } };
    // The job may kill the process before the 202 reaches the socket: the journal has the id anyway.
    await call(body.path, { method: 'POST', body: JSON.stringify(body.json) }).then((r) => r.arrayBuffer(), () => undefined);
    await svc.stop(); // already dead, or dying: waits for the exit
    const id = createdIds().at(-1)!;
    expect(svc.child.signalCode).toBe('SIGKILL');
    expect(auditLines().filter((r) => r.request_id === id).map((r) => r.outcome)).toEqual(['DONE']);

    svc = await startServiceProcess({ home: tmp.home });
    call = authed(svc.url, creds);
    expect(await waitForResult(call, id)).toMatchObject({ status: 'DONE' });
    expect(auditLines().filter((r) => r.request_id === id).map((r) => r.outcome)).toEqual(['DONE']);
    expect(await svc.stop()).toBe(0);
  });
});
