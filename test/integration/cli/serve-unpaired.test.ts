import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 19: `serve` on a config dir that is not paired started silently, then answered 409 to
 * every signing request. It now says so, and how to pair, before the "listening on" line; a
 * pairing made while it runs is taken up (`init` in another terminal), and a paired dir says nothing.
 */
describe('serve on an unpaired config dir', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess | undefined;
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it('prints how to pair before its "listening on" line, and takes up a pairing made while it runs', async () => {
    service = await startServiceProcess({ home: tmp.home });
    const out = service.output();
    const notice = out.indexOf(`this config dir (${tmp.home}) is not paired: signing requests get 409 until it is.`);
    expect(notice, out).toBeGreaterThanOrEqual(0);
    expect(notice).toBeLessThan(out.indexOf('listening on'));
    expect(out).toContain('`localsign init --embedded`');
    expect(out).toContain('`localsign enrol --file FILE`');
    expect(((await (await fetch(`${service.url}/health`)).json()) as { paired: boolean }).paired).toBe(false);

    expect(runCli(['init', '--embedded'], { home: tmp.home }).status).toBe(0);
    expect(((await (await fetch(`${service.url}/health`)).json()) as { paired: boolean }).paired).toBe(true);
    expect(await service.stop()).toBe(0);

    // Paired now: no notice.
    service = await startServiceProcess({ home: tmp.home });
    expect(service.output()).not.toContain('is not paired');
  });
});
