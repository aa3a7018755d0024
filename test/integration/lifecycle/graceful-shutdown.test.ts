import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { PDF_B64, postOne, readCatalog, runLoad, settle, startSilentServer, verifyBlockchain, warmUp, type Accepted, type SilentServer } from './_load';

/**
 * CONTRACT: "SIGINT/SIGTERM drain in-flight work and exit 0"; "SIGTERM finishes in-flight HTTP
 * exchanges within 10 s and exits; requests still PENDING are resumed by the next start".
 * The signal lands while 16 clients are posting; every request answered 202 must end DONE after
 * the restart (resumed from the journal when the drain did not finish them).
 */
describe.each(['SIGTERM', 'SIGINT'] as const)('%s while requests are in flight', (signal) => {
  const tmp = makeTmpHome();
  const home = tmp.home;
  const args = ['--workers', '1'];
  let creds: { key: string; secret: string };
  let service: ServiceProcess | undefined;
  let accepted: Accepted[] = [];

  beforeAll(() => {
    creds = initEmbeddedWithWrapper(home);
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it(`exits 0 within 10 s of ${signal}`, async () => {
    service = await startServiceProcess({ home, args });
    const call = authed(service.url, creds);
    const catalog = await readCatalog(call);
    await warmUp(call, catalog);
    // Signal after 0.8 s, or later on a machine so busy that fewer than 5 requests got through.
    const live: Accepted[] = [];
    let signalledAt = 0;
    const started = Date.now();
    const signalled = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if ((Date.now() - started >= 800 && live.length >= 5) || Date.now() - started > 15_000) {
          clearInterval(check);
          signalledAt = Date.now();
          service!.child.kill(signal);
          resolve();
        }
      }, 20);
    });
    // Wait for the exit without signalling again (stop() would add a SIGTERM of its own).
    const child = service.child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    const [load, code] = await Promise.all([runLoad(call, catalog, { clients: 16, until: signalled, accepted: live }), exited]);
    const tookMs = Date.now() - signalledAt;
    expect({ code, signalCode: service.child.signalCode }).toEqual({ code: 0, signalCode: null });
    expect(tookMs).toBeLessThan(10_000);
    expect(service.output()).toContain(`${signal}: finishing in-flight work`);
    expect(load.refused).toBe(0);
    accepted = load.accepted;
    expect(accepted.length).toBeGreaterThan(4);
  });

  it('after a restart every acknowledged request is DONE, none lost or PENDING', async () => {
    service = await startServiceProcess({ home, args });
    const call = authed(service.url, creds);
    const statuses = await settle(call, accepted.map((a) => a.id), 60_000);
    expect(accepted.filter((a) => statuses.get(a.id) !== 'DONE').map((a) => `${a.id} ${statuses.get(a.id)}`)).toEqual([]);
    const catalog = await readCatalog(call);
    const evm = accepted.filter((a) => a.kind === 'blockchain');
    expect((await Promise.all(evm.map((a) => verifyBlockchain(call, a, catalog.evm.address)))).filter((c) => c !== 'ok')).toEqual([]);
    expect(await service.stop()).toBe(0);
  });
});

describe('SIGTERM with a client that stalls mid-upload and a job stuck on a silent TSA', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess | undefined;
  let tsa: SilentServer | undefined;
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await tsa?.close();
    tmp.cleanup();
  });

  it('still exits 0 within 10 s, and the stuck request resumes at the next start', async () => {
    const creds = initEmbeddedWithWrapper(tmp.home);
    tsa = await startSilentServer();
    service = await startServiceProcess({ home: tmp.home, args: ['--tsa-url', tsa.url] });
    const call = authed(service.url, creds);
    const stuck = (await postOne(call, await readCatalog(call), 1))!;
    while (tsa.connections() < 1) await new Promise((r) => setTimeout(r, 20));
    const socket = connect(service.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    // Headers and a first slice of a 1000-byte body, then nothing: the server waits for the rest.
    socket.write(
      `POST /v1/blockchain/sign HTTP/1.1\r\nHost: 127.0.0.1\r\nx-wrapper-key: ${creds.key}\r\nx-wrapper-secret: ${creds.secret}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"tx_hash":',
    );
    await new Promise((r) => setTimeout(r, 300));
    const child = service.child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    const t0 = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    const tookMs = Date.now() - t0;
    await closed;
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(11_000); // the 10 s deadline, plus timer and exit latency on a busy machine
    expect(service.output()).toContain('SIGTERM: finishing in-flight work');

    service = await startServiceProcess({ home: tmp.home });
    expect(service.output()).toContain('after restart: 1 request(s) resumed, 0 set to ERROR');
    const statuses = await settle(authed(service.url, creds), [stuck.id], 30_000);
    expect(statuses.get(stuck.id)).toBe('DONE');
  }, 60_000);
});

describe('SIGTERM while jobs wait on a timestamp authority that never answers', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess | undefined;
  let tsa: SilentServer | undefined;
  afterAll(async () => {
    await service?.stop();
    await tsa?.close();
    tmp.cleanup();
  });

  it('exits 0 after the drain, leaving them PENDING; the next start resumes each to DONE', async () => {
    const creds = initEmbeddedWithWrapper(tmp.home);
    tsa = await startSilentServer();
    service = await startServiceProcess({ home: tmp.home, args: ['--tsa-url', tsa.url] });
    let call = authed(service.url, creds);
    const catalog = await readCatalog(call);
    const posted = await Promise.all(
      catalog.pades.map(async (c) => {
        const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: PDF_B64, credential_key: c.credential_key }) });
        expect(res.status).toBe(202);
        return ((await res.json()) as { request_id: string }).request_id;
      }),
    );
    // Both jobs now wait on the silent TSA (its client gives up only after 15 s).
    while (tsa.connections() < posted.length) await new Promise((r) => setTimeout(r, 20));
    const child = service.child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    const t0 = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);

    // Restarted without the TSA: the requests resume (from work/) and are signed at B-B.
    service = await startServiceProcess({ home: tmp.home });
    expect(service.output()).toContain(`after restart: ${posted.length} request(s) resumed, 0 set to ERROR`);
    call = authed(service.url, creds);
    const statuses = await settle(call, posted, 60_000);
    expect(posted.map((id) => statuses.get(id))).toEqual(posted.map(() => 'DONE'));
  }, 60_000);
});
