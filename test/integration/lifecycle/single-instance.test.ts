import { createHash } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure } from '../cli/_cli-expect';
import { postOne, readCatalog, settle, type Catalog } from './_load';

/**
 * Starting `serve` a second time on a config dir that a running service uses (the port is taken,
 * or another port) must not touch the running service's journal: a second start used to compact
 * requests.jsonl (a rename under the running service's open file) and resume its PENDING
 * requests before failing to listen, and every request acknowledged after that was gone at the
 * next restart (404).
 */
describe('a second serve on the same config dir', () => {
  const tmp = makeTmpHome();
  const home = tmp.home;
  let creds: { key: string; secret: string };
  let service: ServiceProcess | undefined;
  let catalog: Catalog;
  beforeAll(() => {
    creds = initEmbeddedWithWrapper(home);
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it('is refused with one line, and nothing the first one acknowledges is lost', async () => {
    service = await startServiceProcess({ home });
    const journal = join(home, 'requests.jsonl');
    const started = statSync(journal).ino;
    let call = authed(service.url, creds);
    catalog = await readCatalog(call);
    const first = (await postOne(call, catalog, 0))!;
    expect((await settle(call, [first.id], 30_000)).get(first.id)).toBe('DONE');
    // The service compacts its own journal once, 250 ms after it listens (service/server.ts
    // HOUSEKEEPING_DELAY_MS): a new file. The first signature can be over before that (it was, in
    // a CI run), so the journal to keep is the one after it: wait for the rename, or for 2 s when
    // it came before the first look.
    for (let i = 0; i < 40 && statSync(journal).ino === started; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const journalInode = statSync(journal).ino;

    const message = `another localsign serve is running on the config dir ${home}; stop it first`;
    for (const port of [String(service.port), '0']) {
      const second = runCli(['serve', '--port', port], { home, timeoutMs: 15_000 });
      expect(expectOneLineFailure(second)).toBe(message);
    }
    expect(statSync(journal).ino).toBe(journalInode);

    const after = (await postOne(call, catalog, 2))!;
    expect((await settle(call, [after.id], 30_000)).get(after.id)).toBe('DONE');
    expect(await service.stop()).toBe(0);

    service = await startServiceProcess({ home });
    call = authed(service.url, creds);
    const statuses = await settle(call, [first.id, after.id], 5_000);
    expect([...statuses.entries()]).toEqual([
      [first.id, 'DONE'],
      [after.id, 'DONE'],
    ]);
  });

  it('a service killed with -9 does not block the next start', async () => {
    service!.child.kill('SIGKILL');
    await service!.stop();
    service = await startServiceProcess({ home });
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});

/**
 * A config dir too deep for a socket path (100 bytes or more): the lock used to be a socket in the
 * shared temp dir at a name anyone could compute (sha256 of the path), so another user could take
 * it first and keep `serve` from starting. Now it stays in the config dir, reached on Linux through
 * the open dir's descriptor.
 */
describe.skipIf(process.platform !== 'linux')('a config dir whose path is too long for a socket', () => {
  const tmp = makeTmpHome();
  const home = join(tmp.home, 'a-config-dir-deep-enough-that-its-socket-path-passes-one-hundred-bytes', '.localsign');
  const squatted = join(tmpdir(), `localsign-${createHash('sha256').update(home).digest('hex').slice(0, 16)}.sock`);
  let service: ServiceProcess | undefined;
  let squatter: Server | undefined;
  afterAll(async () => {
    await service?.stop();
    squatter?.close();
    tmp.cleanup();
  });

  it('a socket squatted at the old shared name does not keep serve from starting, and a second serve is still refused', async () => {
    expect(Buffer.byteLength(join(home, 'serve.sock'))).toBeGreaterThanOrEqual(100);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    initEmbeddedWithWrapper(home);
    squatter = createServer();
    await new Promise<void>((resolve) => squatter!.listen(squatted, resolve));
    service = await startServiceProcess({ home });
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect(statSync(join(home, 'serve.sock')).isSocket()).toBe(true);
    const second = runCli(['serve', '--port', '0'], { home, timeoutMs: 15_000 });
    expect(expectOneLineFailure(second)).toBe(`another localsign serve is running on the config dir ${home}; stop it first`);
  });
});
