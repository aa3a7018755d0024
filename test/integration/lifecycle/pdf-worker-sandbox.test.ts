/**
 * Issue 31: the PDF workers, which parse strangers' documents, get no secret in their environment
 * (not the chip PIN variable of `--chip-pin-env`, not LOCALSIGN_SECRET) and, under Node's
 * permission model, cannot read the config dir beyond its work/ folder. The service bundle on
 * this machine's Node 20 with a SoftHSM2 chip whose PIN is in a variable; the same checks on the
 * single executable (Node 22) are in test/integration/sea/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLargeImage } from '../../helpers/pdf-corpus';
import { expectFencedPdfWorkers } from '../../helpers/pdf-worker-probe';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { waitForResult } from '../../helpers/service-process';
import { initChip, newWrapper, onePagePdfBase64, startWithChip } from '../chip-api/_chip-service';

describe('PDF workers of the service bundle (Node 20)', () => {
  const home = makeTmpHome();
  let token: SoftHsmToken;
  let stop: () => Promise<unknown> = async () => undefined;
  beforeAll(async () => {
    token = await createSoftHsmToken({ label: 'sandbox-card', keys: ['rsa'] });
  });
  afterAll(async () => {
    await stop();
    await token?.cleanup();
    home.cleanup();
  });

  it('sign a small and a large PDF, with workers that hold no PIN variable and cannot read the config dir', async () => {
    const env = { SOFTHSM2_CONF: token.conf, SIGNING_PIN: token.pin, LOCALSIGN_SECRET: 'wsec_not-for-workers' };
    initChip(home.home, SOFTHSM_MODULE, ['--chip-token', token.label, '--chip-pin-env', 'SIGNING_PIN'], env);
    const { service, call, credentials } = await startWithChip(home.home, newWrapper(home.home), env, ['--document-memory-limit', '256']);
    stop = () => service.stop();
    const pades = credentials.find((c) => c.type === 'pades')!;
    // Over 4 MiB: the document and the answers cross through files in work/.
    for (const pdf of [await onePagePdfBase64(), Buffer.from(generateLargeImage(6)).toString('base64')]) {
      const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: pdf, credential_key: pades.credential_key }) });
      expect(res.status, await res.clone().text()).toBe(202);
      const done = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id, 60_000);
      expect(done.status, JSON.stringify(done).slice(0, 300)).toBe('DONE');
    }
    await expectFencedPdfWorkers({
      servicePid: service.child.pid!,
      home: home.home,
      secrets: ['SIGNING_PIN', 'LOCALSIGN_SECRET', 'LOCALSIGN_HOME', 'SOFTHSM2_CONF'],
      pdf: Buffer.from(await onePagePdfBase64(), 'base64'),
      permissionFlag: '--experimental-permission',
    });
  });
});
