import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, smallPdf } from '../../helpers/api-fixtures';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { startPlatformDouble, type PlatformDouble, type WireCredential, type WireDesign } from '../../helpers/platform-double';
import { chainWithTruncatedSigner, dimensionBombPng } from '../../helpers/platform-double/bad-data';
import { authed, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { pairWith, postJson, wrapperFor } from './_platform';

/**
 * Issue 15 "Platform catalogue data checked at sync", against the platform double (a real server
 * process), the built CLI and a real service: the double serves a credential whose signer
 * certificate is not DER and a design whose stamp PNG is a dimension bomb. The sync succeeds,
 * GET /v1/credentials answers 200 with the good ones, and the bad ones are named in the sync
 * result (API and CLI) and in the log. Then the platform's names reach the terminal escaped.
 */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'Evil\r\u001b[2K\u001b[1Aoverall: VALID\u202e';
const HOSTILE_SHOWN = 'Evil\\x0d\\x1b[2K\\x1b[1Aoverall: VALID\\u{202e}';

describe('a platform catalogue with a non-DER certificate and a PNG dimension bomb', () => {
  const tmp = makeTmpHome();
  let double: PlatformDouble;
  let svc: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let wrapper: { key: string; secret: string };
  let bad: WireCredential;
  let bomb: WireDesign;

  beforeAll(async () => {
    double = await startPlatformDouble({ tenantId: 15 });
    const [rsa] = (await double.control.credentials()).filter((c) => c.credential_key === double.keys.rsa.credential_key);
    bad = { ...rsa!, credential_key: 'not-der', name: 'Broken certificate', certificate_chain: chainWithTruncatedSigner(rsa!.certificate_chain!) };
    const [standard] = (await double.control.designs()).filter((d) => d.design_key === double.keys.designs.standard);
    bomb = { ...standard!, design_key: 'png-bomb', name: 'Dimension bomb', stamp: { ...standard!.stamp, image_png_base64: dimensionBombPng().toString('base64') } };
    await double.control.upsertCredential(bad);
    await double.control.upsertDesign(bomb);
  });
  afterAll(async () => {
    await svc?.stop();
    await double?.stop();
    tmp.cleanup();
  });

  const skipped = () => [
    { credential_key: 'not-der', name: 'Broken certificate', reason: expect.stringMatching(/^certificate_chain\[0\] is not a DER X\.509 certificate \(.+\)$/) },
    { design_key: 'png-bomb', name: 'Dimension bomb', reason: 'stamp.image_png_base64 is 20000 × 20000 pixels; at most 2000 × 2000 are allowed' },
  ];

  it('init --platform pairs and syncs the good entries, naming the two it left out', async () => {
    const { init } = await pairWith(double, tmp.home);
    expect(init).toMatchObject({ paired: true, credentials: 3, designs: 2, skipped: skipped() });
    const cache = JSON.parse(readFileSync(join(tmp.home, 'cache.json'), 'utf8')) as { credentials: { credential_key: string; certificate?: { subject: string } }[]; designs: { design_key: string }[] };
    expect(cache.credentials.map((c) => c.credential_key)).not.toContain('not-der');
    expect(cache.designs.map((d) => d.design_key)).not.toContain('png-bomb');
    // Each signer certificate was read once, at sync, and kept for GET /v1/credentials.
    expect(cache.credentials.filter((c) => c.certificate).map((c) => c.certificate!.subject)).toHaveLength(2);
  });

  it('the service lists the good credentials (200); POST /v1/sync names the bad ones and logs a warning for each', async () => {
    svc = await startServiceProcess({ home: tmp.home });
    wrapper = wrapperFor(tmp.home);
    call = authed(svc.url, wrapper);
    const creds = await call('/v1/credentials');
    expect(creds.status).toBe(200);
    const list = ((await creds.json()) as { credentials: { credential_key: string; certificate: { subject: string } | null }[] }).credentials;
    expect(list.map((c) => c.credential_key).sort()).toEqual([double.keys.rsa.credential_key, double.keys.p256.credential_key, double.keys.wallet.credential_key].sort());
    expect(list.find((c) => c.credential_key === double.keys.rsa.credential_key)!.certificate!.subject).toMatch(/CN=/);
    const sync = await postJson(call, '/v1/sync', {});
    expect(sync.status).toBe(200);
    expect(await sync.json()).toEqual({ ok: true, credentials: 3, designs: 2, cache: { credentials: 3, designs: 2 }, skipped: skipped() });
    expect((await call('/v1/credentials')).status).toBe(200);
    const designs = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string }[] }).designs;
    expect(designs.map((d) => d.design_key)).not.toContain('png-bomb');
    // A sign request naming them meets the ordinary 422 of an unknown key, not a 2 GB decode.
    const pdf_base64 = (await smallPdf()).toString('base64');
    for (const [body, message] of [
      [{ pdf_base64, credential_key: double.keys.rsa.credential_key, design_key: 'png-bomb' }, 'design_key png-bomb is not a known design (see GET /v1/designs)'],
      [{ pdf_base64, credential_key: 'not-der' }, /not-der/],
    ] as const) {
      await expectError(await postJson(call, '/v1/pades/sign', body), 422, message, { home: tmp.home, reader: call });
    }
    const log = readFileSync(join(tmp.home, 'service.log'), 'utf8');
    expect(log).toMatch(/WARN sync: credential not-der \(Broken certificate\) left out: certificate_chain\[0\] is not a DER X\.509 certificate/);
    expect(log).toContain('WARN sync: design png-bomb (Dimension bomb) left out: stamp.image_png_base64 is 20000 × 20000 pixels; at most 2000 × 2000 are allowed');
  });

  it('localsign sync says what it left out, in lines and in --json', async () => {
    const human = await runCliAsync(['sync'], { home: tmp.home });
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain('Synced: 3 credential(s), 2 design(s); 2 left out\n');
    expect(human.stdout).toContain('  left out: design png-bomb (Dimension bomb): stamp.image_png_base64 is 20000 × 20000 pixels; at most 2000 × 2000 are allowed\n');
    expect(human.stdout).toMatch(/ {2}left out: credential not-der \(Broken certificate\): certificate_chain\[0\] is not a DER X\.509 certificate/);
    const json = parseJson(await runCliAsync(['sync', '--json'], { home: tmp.home }));
    expect(json).toMatchObject({ ok: true, credentials: 3, designs: 2, skipped: skipped() });
  });

  it('platform names reach the terminal escaped: credentials, designs and the sync lines', async () => {
    await double.control.upsertCredential({ ...bad, credential_key: 'hostile-cred', name: HOSTILE, certificate_chain: (await double.control.credentials()).find((c) => c.credential_key === double.keys.rsa.credential_key)!.certificate_chain });
    await double.control.upsertDesign({ ...bomb, design_key: 'hostile-design', name: HOSTILE, stamp: { ...bomb.stamp, image_png_base64: undefined } });
    await double.control.upsertDesign({ ...bomb, name: HOSTILE });
    const sync = await runCliAsync(['sync'], { home: tmp.home });
    expect(sync.status, sync.stderr).toBe(0);
    expect(sync.stdout).toContain(`  left out: design png-bomb (${HOSTILE_SHOWN}): stamp.image_png_base64 is 20000`);
    const env = { LOCALSIGN_KEY: wrapper.key, LOCALSIGN_SECRET: wrapper.secret };
    const creds = await runCliAsync(['credentials'], { home: tmp.home, env });
    const designs = await runCliAsync(['designs'], { home: tmp.home, env });
    for (const [r, line] of [
      [creds, `hostile-cred  pades  platform  ${HOSTILE_SHOWN}`],
      [designs, `hostile-design  ${HOSTILE_SHOWN}: `],
    ] as const) {
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(line);
      expect(RAW_CONTROL.test(r.stdout), JSON.stringify(r.stdout)).toBe(false);
    }
    expect(RAW_CONTROL.test(sync.stdout), JSON.stringify(sync.stdout)).toBe(false);
    // --json: the same values (a parser reads the name as sent), with no raw bidi control in the text.
    const json = await runCliAsync(['credentials', '--json'], { home: tmp.home, env });
    expect(json.stdout).toContain('\\u202e');
    expect(RAW_CONTROL.test(json.stdout)).toBe(false);
    expect(parseJson<{ credentials: { name: string }[] }>(json).credentials.map((c) => c.name)).toContain(HOSTILE);
  });
});
