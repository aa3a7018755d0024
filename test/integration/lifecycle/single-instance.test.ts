import { statSync } from 'node:fs';
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
    let call = authed(service.url, creds);
    catalog = await readCatalog(call);
    const first = (await postOne(call, catalog, 0))!;
    expect((await settle(call, [first.id], 30_000)).get(first.id)).toBe('DONE');
    const journalInode = statSync(join(home, 'requests.jsonl')).ino;

    const message = `another localsign serve is running on the config dir ${home}; stop it first`;
    for (const port of [String(service.port), '0']) {
      const second = runCli(['serve', '--port', port], { home, timeoutMs: 15_000 });
      expect(expectOneLineFailure(second)).toBe(message);
    }
    expect(statSync(join(home, 'requests.jsonl')).ino).toBe(journalInode);

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
