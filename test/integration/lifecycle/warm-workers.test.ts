import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, HASH_A, postJson, smallPdf } from '../../helpers/api-fixtures';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { DEFAULT_IDLE_MS } from '../../../src/workers/pool';

/**
 * The person who signs now and then: a PDF worker process and a signing thread are started beside
 * the service and kept, so a signature after the idle timeout (pool.ts DEFAULT_IDLE_MS) starts no
 * process or thread on its request's path. Read from outside: the service's child processes and
 * its thread count (/proc), before and after the idle period and the signatures. Not timed.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: ReturnType<typeof authed>;

const children = (pid: number) =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number)
    .sort();
const threads = (pid: number) => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

beforeAll(async () => {
  tmp = makeTmpHome('localsign-warm-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home });
  call = authed(svc.url, creds);
});
afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

describe.skipIf(process.platform !== 'linux')('workers kept warm', () => {
  it('a PDF worker is started with the service, and after the idle timeout a signature starts no process or thread', async () => {
    const pid = svc.child.pid!;
    // Started beside the service, before any request.
    for (let i = 0; i < 100 && children(pid).length === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
    expect(children(pid)).toHaveLength(1);
    const keys = await credentialKeys(call);
    // One after the other, as the person at the desk signs: two at once may rightly start a
    // second signing thread for the overlap (a burst), which is not what this test is about.
    const signBoth = async () => {
      const pdf = await postJson(call, '/v1/pades/sign', { pdf_base64: (await smallPdf()).toString('base64'), credential_key: keys.pades[0] });
      expect((await waitForResult(call, ((await pdf.json()) as { request_id: string }).request_id)).status).toBe('DONE');
      const evm = await postJson(call, '/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: keys.evm[0] });
      expect((await waitForResult(call, ((await evm.json()) as { request_id: string }).request_id)).status).toBe('DONE');
    };
    await signBoth();
    // Past the idle timeout: workers started for the burst have ended, the kept ones are there.
    await new Promise((r) => setTimeout(r, DEFAULT_IDLE_MS + 2_000));
    const idle = { children: children(pid), threads: threads(pid) };
    expect(idle.children).toHaveLength(1);
    await signBoth();
    expect({ children: children(pid), threads: threads(pid) }).toEqual(idle);
  }, 60_000);
});
