import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillUp, tryMountExt4, tryMountTmpfs, whyNoMount, type Ext4Mount, type ScratchMount } from '../../helpers/scratch-mount';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { PDF_B64, postOne, readCatalog, settle, txHashOf, type Catalog } from './_load';

/**
 * Issue 10, resilience: the config dir's disk fills up, or turns read-only, while the service
 * serves. Each request gets a clear error, no file is corrupted, and the service takes writes
 * again once the disk does. The disk is a filesystem the test mounts (needs root, as CI runs).
 */
type Call = ReturnType<typeof authed>;

/** Every line of every store file parses (no record torn or glued to another). */
function expectStoresParse(home: string): void {
  for (const name of ['requests.jsonl', 'audit.jsonl', 'errors.jsonl']) {
    if (!existsSync(join(home, name))) continue;
    const lines = readFileSync(join(home, name), 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line) as unknown, `${name}: ${line.slice(0, 80)}`).not.toThrow();
  }
  for (const dir of ['work', 'results']) expect(readdirSync(join(home, dir)).filter((f) => f.endsWith('.tmp')), dir).toEqual([]);
}

const evm = (call: Call, catalog: Catalog, n: number) =>
  call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: `0x${txHashOf(n)}`, credential_key: catalog.evm.credential_key, chain_id: 1 }) });
const pades = (call: Call, catalog: Catalog) => call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: PDF_B64, credential_key: catalog.pades[0]!.credential_key }) });

const noTmpfs = whyNoMount(() => tryMountTmpfs(1024 * 1024));
if (noTmpfs) console.warn(`disk-full test skipped: ${noTmpfs}`);

describe.skipIf(noTmpfs !== null)('the disk fills up while serving (tmpfs, size=24m)', () => {
  let mount: ScratchMount;
  let home: string;
  let svc: ServiceProcess;
  let call: Call;
  let catalog: Catalog;
  let filler: string;
  const accepted: string[] = [];

  beforeAll(async () => {
    mount = tryMountTmpfs(24 * 1024 * 1024) as ScratchMount;
    home = join(mount.dir, 'home');
    mkdirSync(home, { mode: 0o700 });
    const creds = initEmbeddedWithWrapper(home);
    svc = await startServiceProcess({ home, args: ['--workers', '1'] });
    call = authed(svc.url, creds);
    catalog = await readCatalog(call);
  });
  afterAll(async () => {
    await svc?.stop();
    mount?.cleanup();
  });

  it('requests made while it is full get 503 and the error body; reads still work', async () => {
    for (const n of [1, 2]) accepted.push((await postOne(call, catalog, n))!.id);
    expect([...(await settle(call, accepted, 30_000)).values()]).toEqual(['DONE', 'DONE']);
    // A few more on their way when the disk fills: they finish once it has room again.
    for (const n of [3, 4, 5, 6]) accepted.push((await postOne(call, catalog, n))!.id);
    filler = fillUp(mount.dir);

    const full = /^cannot write \S+: its disk has no space left \(ENOSPC\); the write was undone, try again once the disk can be written$/;
    // A journal line can still land in the unused rest of the file's last page (tmpfs allocates
    // whole pages): such a request is durable and gets its 202, as it should. The next ones need a
    // page the disk does not have.
    let refused: Response | null = null;
    for (let n = 100; n < 140 && !refused; n += 1) {
      const res = await evm(call, catalog, n);
      if (res.status === 202) accepted.push(((await res.json()) as { request_id: string }).request_id);
      else refused = res;
    }
    expect(refused, 'a request refused within 40 once the last page is used up').not.toBeNull();
    const ids = [await expect503(refused!, full), await expect503(await pades(call, catalog), full)];
    expect((await call(`/v1/results/${accepted[0]}`)).status).toBe(200);
    expect((await call('/health')).status).toBe(200);
    const listed = ((await (await call('/v1/errors?limit=100')).json()) as { errors: { error_id: string; status: number }[] }).errors;
    for (const id of ids) expect(listed.find((e) => e.error_id === id)).toMatchObject({ status: 503 });
    expectStoresParse(home);
  });

  it('once space returns, new requests are served and those caught mid-way end DONE', async () => {
    rmSync(filler);
    const later = [(await postOne(call, catalog, 8))!.id, (await postOne(call, catalog, 9))!.id];
    const statuses = await settle(call, [...accepted, ...later], 60_000);
    expect([...statuses.entries()].filter(([, s]) => s !== 'DONE')).toEqual([]);
    expect(await svc.stop()).toBe(0);
    expectStoresParse(home);
  });
});

/**
 * A 503 with the error body. Its record may not reach errors.jsonl (the disk is full: the caller
 * checks GET /v1/errors, which lists it from memory).
 */
async function expect503(res: Response, message: RegExp): Promise<string> {
  expect(res.status).toBe(503);
  const body = (await res.json()) as { error: string; error_id: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'error_id']);
  expect(body.error).toMatch(message);
  expect(body.error_id).toMatch(/^err_/);
  return body.error_id;
}

const noExt4 = whyNoMount(() => tryMountExt4(4 * 1024 * 1024));
if (noExt4) console.warn(`read-only test skipped: ${noExt4}`);

describe.skipIf(noExt4 !== null)('the config dir turns read-only while serving (ext4, errors=remount-ro)', () => {
  let mount: Ext4Mount;
  let home: string;
  let creds: { key: string; secret: string };
  let svc: ServiceProcess | undefined;
  let call: Call;
  let catalog: Catalog;
  let done: string[];
  let before: string;

  beforeAll(async () => {
    mount = tryMountExt4(24 * 1024 * 1024) as Ext4Mount;
    home = join(mount.dir, 'home');
    mkdirSync(home, { mode: 0o700 });
    creds = initEmbeddedWithWrapper(home);
    svc = await startServiceProcess({ home });
    call = authed(svc.url, creds);
    catalog = await readCatalog(call);
  });
  afterAll(async () => {
    await svc?.stop();
    mount?.cleanup();
  });

  it('requests get 503 naming the read-only disk; reads still work', async () => {
    done = [(await postOne(call, catalog, 1))!.id, (await postOne(call, catalog, 2))!.id];
    expect([...(await settle(call, done, 30_000)).values()]).toEqual(['DONE', 'DONE']);
    before = await (await call(`/v1/results/${done[1]}`)).text();
    mount.turnReadOnly();
    const readOnly = /^cannot write \S+: its disk is read-only \(EROFS\); the write was undone, try again once the disk can be written$/;
    await expect503(await evm(call, catalog, 100), readOnly);
    await expect503(await pades(call, catalog), readOnly);
    expect(await (await call(`/v1/results/${done[1]}`)).text()).toBe(before);
    expect((await call('/health')).status).toBe(200);
    await svc!.stop();
    svc = undefined;
  });

  it('after the disk is repaired, the stores parse, results are unchanged, and signing works', async () => {
    mount.remountAfterRepair();
    expectStoresParse(home);
    svc = await startServiceProcess({ home });
    call = authed(svc.url, creds);
    expect(await (await call(`/v1/results/${done[1]}`)).text()).toBe(before);
    const next = (await postOne(call, catalog, 3))!.id;
    expect((await settle(call, [next], 30_000)).get(next)).toBe('DONE');
  });
});
