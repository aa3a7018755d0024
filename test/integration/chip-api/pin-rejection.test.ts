/**
 * Issue 7.4, issue 31: a PIN the token refuses is presented once, not on every request, so
 * ordinary traffic cannot lock the operator's token. The chip module is OpenSC's pkcs11-spy in
 * front of a SoftHSM2 token, and the spy's log counts the C_Login calls of each process.
 *
 * The rule: one C_Login per operator act (`localsign chip:retry-pin`, `init`, a PIN file written);
 * none per request, none per sync (an application's `POST /v1/sync` or `localsign sync`), none
 * after a restart: the refusal is kept in the config dir.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli } from '../../helpers/cli';
import { PKCS11_SPY, spyCalls, spyEnv } from '../../helpers/pkcs11-spy';
import { authed, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { filesContaining } from '../cli/_cli-expect';
import { tempDir } from '../../helpers/temp-dir';

const WRONG_PIN = '0000-wrong-pin';

describe('a chip PIN the token refuses', () => {
  const home = makeTmpHome();
  // Outside the config dir: the spy logs the PIN bytes it passes on.
  const scratch = tempDir('localsign-pin-rejection-');
  const pinFile = join(scratch, 'chip.pin');
  const spyLog = (name: string) => join(scratch, `${name}.spy.log`);
  let token: SoftHsmToken;
  let service: ServiceProcess | undefined;
  let call: ReturnType<typeof authed>;
  let wrapper: { key: string; secret: string };
  let evmKey: string;
  let padesKey: string;
  let pdfBase64: string;
  let fixMessage: string;

  const env = (log: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ SOFTHSM2_CONF: token.conf, ...spyEnv(SOFTHSM_MODULE, spyLog(log)), ...extra });

  async function startService(log: string): Promise<void> {
    service = await startServiceProcess({ home: home.home, env: env(log) });
    call = authed(service.url, wrapper);
  }

  /** Sends `count` sign requests, EVM and PAdES in turn, all at once; resolves with their ends. */
  async function signMany(count: number): Promise<Record<string, unknown>[]> {
    const ids = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res =
          i % 2 === 0
            ? await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: '0x' + i.toString(16).padStart(2, '0').repeat(32), credential_key: evmKey }) })
            : await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: pdfBase64, credential_key: padesKey, signer_name: 'PIN Tester' }) });
        expect(res.status).toBe(202);
        return ((await res.json()) as { request_id: string }).request_id;
      }),
    );
    const results: Record<string, unknown>[] = [];
    for (const id of ids) results.push(await waitForResult(call, id));
    return results;
  }

  function expectAllRefused(results: Record<string, unknown>[]): void {
    for (const r of results) {
      expect(r.status, JSON.stringify(r)).toBe('ERROR');
      expect(r.error).toBe(fixMessage);
      expect(String(r.error_id)).toMatch(/^err_/u);
    }
  }

  beforeAll(async () => {
    token = await createSoftHsmToken({ label: 'pin-token' });
    fixMessage =
      "PIN incorrect on token 'pin-token' (C_Login: CKR_PIN_INCORRECT); no further login will be tried, so that wrong tries do not lock the token: " +
      `put the right PIN in the file ${pinFile} (the next use of the chip tries it once), or, if the token was made to accept the one there, run \`localsign chip:retry-pin\``;
    const doc = await PDFDocument.create();
    doc.addPage([300, 300]);
    pdfBase64 = Buffer.from(await doc.save()).toString('base64');
  });

  afterAll(async () => {
    await service?.stop();
    await token?.cleanup();
    home.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('init with a wrong PIN fails with one line after one C_Login, and leaves the machine unpaired', () => {
    const init = runCli(['init', '--embedded', '--chip-module', PKCS11_SPY, '--chip-token', token.label, '--chip-pin-env', 'LOCALSIGN_CHIP_PIN'], {
      home: home.home,
      env: env('init-wrong', { LOCALSIGN_CHIP_PIN: WRONG_PIN }),
    });
    expect(init.status).not.toBe(0);
    const lines = init.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      "PIN incorrect on token 'pin-token' (C_Login: CKR_PIN_INCORRECT); no further login will be tried, so that wrong tries do not lock the token: " +
        'set the right PIN in the variable LOCALSIGN_CHIP_PIN and restart the service, then run `localsign chip:retry-pin` (alone, if the token was made to accept the one there)',
    );
    expect(spyCalls(spyLog('init-wrong'), 'C_Login')).toBe(1);
    const sync = runCli(['sync'], { home: home.home, env: env('sync-unpaired') });
    expect(sync.status).not.toBe(0);
    expect(sync.stderr).toMatch(/not paired/u);
    expect(spyCalls(spyLog('sync-unpaired'), 'C_Login')).toBe(0);
  });

  it('10 requests with a wrong PIN in the file: one C_Login, each request an ERROR naming the fix', async () => {
    writeFileSync(pinFile, `${token.pin}\n`, { mode: 0o600 });
    const init = runCli(['init', '--embedded', '--chip-module', PKCS11_SPY, '--chip-token', token.label, '--chip-pin-file', pinFile, '--json'], { home: home.home, env: env('init') });
    expect(init.status, init.stderr).toBe(0);
    expect(parseJson(init)).toMatchObject({ paired: true, chip: 'pkcs11', credentials: 3 });
    expect(spyCalls(spyLog('init'), 'C_Login')).toBe(1);
    wrapper = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: home.home }));

    writeFileSync(pinFile, `${WRONG_PIN}\n`);
    await startService('service');
    const credentials = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string; type: string; name: string }[] }).credentials;
    evmKey = credentials.find((c) => c.type === 'evm')!.credential_key;
    padesKey = credentials.find((c) => c.name === 'rsa-signer')!.credential_key;

    expectAllRefused(await signMany(10));
    expect(spyCalls(spyLog('service'), 'C_Login')).toBe(1);
    expectAllRefused(await signMany(4));
    expect(spyCalls(spyLog('service'), 'C_Login')).toBe(1);
  });

  it('POST /v1/sync, from any application, presents no PIN: 502 with the same message, the chip stays shut', async () => {
    const other = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--name', 'other', '--json'], { home: home.home }));
    for (const caller of [call, authed(service!.url, other), call]) {
      const sync = await caller('/v1/sync', { method: 'POST' });
      expect(sync.status).toBe(502);
      expect(((await sync.json()) as { error: string }).error).toBe(fixMessage);
    }
    expect(spyCalls(spyLog('service'), 'C_Login')).toBe(1);
    expectAllRefused(await signMany(4));
    expect(spyCalls(spyLog('service'), 'C_Login')).toBe(1);
    expect(((await (await fetch(`${service!.url}/health`)).json()) as { chip?: string }).chip).toBe('pin_rejected');
  });

  it('`localsign sync` in another process and a restarted service present no PIN either', async () => {
    const sync = runCli(['sync'], { home: home.home, env: env('cli-sync-refused') });
    expect(sync.status).not.toBe(0);
    expect(sync.stderr).toContain(fixMessage);
    expect(spyCalls(spyLog('cli-sync-refused'), 'C_Login')).toBe(0);
    await service!.stop();
    await startService('restarted');
    expectAllRefused(await signMany(4));
    expect((await call('/v1/sync', { method: 'POST' })).status).toBe(502);
    expect(spyCalls(spyLog('restarted'), 'C_Login')).toBe(0);
  });

  it('the token is made to accept the PIN in the file and the operator runs `localsign chip:retry-pin`: one C_Login, signing works at once', async () => {
    // The operator resets the token's PIN with the vendor tool (here OpenSC's pkcs11-tool).
    await token.setUserPin(WRONG_PIN);
    const lift = runCli(['chip:retry-pin', '--json'], { home: home.home });
    expect(lift.status, lift.stderr).toBe(0);
    expect(parseJson(lift)).toMatchObject({ lifted: true, refused: { code: 'CKR_PIN_INCORRECT', reason: "PIN incorrect on token 'pin-token' (C_Login: CKR_PIN_INCORRECT)" } });
    for (const r of await signMany(6)) expect(r.status, JSON.stringify(r)).toBe('DONE');
    expect(spyCalls(spyLog('restarted'), 'C_Login')).toBe(1);
    expect(parseJson(runCli(['chip:retry-pin', '--json'], { home: home.home }))).toEqual({ lifted: false, refused: null });
  });

  it('refused again after a restart, the operator writes the right PIN in the file: one C_Login, no command needed', async () => {
    writeFileSync(pinFile, `${token.pin}\n`); // the token's PIN is WRONG_PIN now
    await service!.stop();
    await startService('file-fix');
    expectAllRefused(await signMany(4));
    expect(spyCalls(spyLog('file-fix'), 'C_Login')).toBe(1);
    writeFileSync(pinFile, `${WRONG_PIN}\n`);
    for (const r of await signMany(4)) expect(r.status, JSON.stringify(r)).toBe('DONE');
    const sync = await call('/v1/sync', { method: 'POST' });
    expect(sync.status).toBe(200);
    expect(spyCalls(spyLog('file-fix'), 'C_Login')).toBe(2);
  });

  it('never writes the PIN, right or wrong, to the config dir or the service output', () => {
    for (const pin of [token.pin, WRONG_PIN]) {
      expect(filesContaining(home.home, pin)).toEqual([]);
      expect(service!.output()).not.toContain(pin);
    }
  });
});
