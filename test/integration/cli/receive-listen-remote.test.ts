import { afterAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../helpers/api-fixtures';
import { serveUntilExit, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 15 (low): `serve --receive-listen 0.0.0.0:P` started without `--allow-remote`. A push
 * listener beyond loopback is a door from the network, so it needs the same word as `--host`.
 */
/** The receive listener's base URL, from the line serve prints just after "listening on". */
async function receiveUrl(s: ServiceProcess): Promise<string> {
  for (let i = 0; i < 200; i += 1) {
    const m = /platform pushes received on (http:\/\/\S+)\/receive/.exec(s.output());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no receive listener line in:\n${s.output()}`);
}

describe('serve --receive-listen beyond loopback', () => {
  const tmp = makeTmpHome('localsign-receive-remote-');
  let svc: ServiceProcess | undefined;
  afterAll(async () => {
    await svc?.stop();
    tmp.cleanup();
  });

  it('without --allow-remote: exit 1 with one line naming the address and the flag, nothing listening', async () => {
    for (const [flag, address] of [
      ['0.0.0.0:0', '0.0.0.0:0'],
      ['[::]:0', '[::]:0'],
    ]) {
      const run = await serveUntilExit({ home: tmp.home, args: ['--receive-listen', flag!] });
      expect(run.code).toBe(1);
      expect(run.output.trim()).toBe(`--receive-listen ${address} is not a loopback address; to receive platform pushes from the network on purpose add --allow-remote`);
    }
    // Also from the environment, as the installed service gives it.
    const env = await serveUntilExit({ home: tmp.home, env: { LOCALSIGN_RECEIVE_LISTEN: '0.0.0.0:0' } });
    expect(env.code).toBe(1);
    expect(env.output.trim()).toMatch(/^--receive-listen 0\.0\.0\.0:0 is not a loopback address/);
  });

  it('on loopback it needs nothing; with --allow-remote it listens beyond loopback and serves only POST /receive', async () => {
    const loopback = await startServiceProcess({ home: tmp.home, args: ['--receive-listen', '127.0.0.1:0'] });
    expect(await receiveUrl(loopback)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await loopback.stop();
    svc = await startServiceProcess({ home: tmp.home, args: ['--receive-listen', '0.0.0.0:0', '--allow-remote'] });
    const url = await receiveUrl(svc);
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    // The main listener stays on loopback: --allow-remote alone moves nothing.
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    const port = new URL(url).port;
    const other = await rawRequest(`http://127.0.0.1:${port}`, { path: '/health' });
    expect(other.status).toBe(404);
  });
});
