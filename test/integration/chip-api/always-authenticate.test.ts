/**
 * Issue 16: keys marked CKA_ALWAYS_AUTHENTICATE, as signature cards mark them (national eID, QSCDs,
 * PIV's signature slot), on a SoftHSM2 token that enforces the attribute (keys made with
 * `pkcs11-tool --keypairgen --always-auth`), behind OpenSC's pkcs11-spy: every C_Sign must follow a
 * C_Login(CKU_CONTEXT_SPECIFIC) after its C_SignInit, pdfsig and ethers accept the signatures, and a
 * PIN the token refuses in that login is presented once however many requests come.
 */
import { X509Certificate } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli } from '../../helpers/cli';
import { runPdfsig } from '../../helpers/pdf-tools';
import { PKCS11_SPY, spyEnv, spySequence } from '../../helpers/pkcs11-spy';
import { authed, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { filesContaining } from '../cli/_cli-expect';
import { initChip, newWrapper, onePagePdfBase64, startWithChip, type ChipCredential } from './_chip-service';
import { tempDir } from '../../helpers/temp-dir';

describe('a token whose keys want the PIN for every signature', () => {
  const home = makeTmpHome();
  // Outside the config dir: the spy logs the PIN bytes it passes on.
  const scratch = tempDir('localsign-always-auth-');
  const spyLog = join(scratch, 'spy.log');
  // The stored PIN, in a file the service reads at each login (--chip-pin-file).
  const pinFile = join(scratch, 'chip.pin');
  let token: SoftHsmToken;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let credentials: ChipCredential[];
  let pdfBase64: string;

  beforeAll(async () => {
    token = await createSoftHsmToken({ label: 'always-auth', alwaysAuth: true });
    writeFileSync(pinFile, token.pin, { mode: 0o600 });
    const env = { SOFTHSM2_CONF: token.conf, ...spyEnv(SOFTHSM_MODULE, spyLog) };
    // The chip module is the spy, which passes every call on to SoftHSM2 and logs it.
    initChip(home.home, PKCS11_SPY, ['--chip-token', token.label, '--chip-pin-file', pinFile], env);
    ({ service, call, credentials } = await startWithChip(home.home, newWrapper(home.home), env));
    pdfBase64 = await onePagePdfBase64();
  });
  afterAll(async () => {
    await service?.stop();
    await token?.cleanup();
    rmSync(scratch, { recursive: true, force: true });
    home.cleanup();
  });

  const sign = async (path: string, body: Record<string, unknown>) => {
    const res = await call(path, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(202);
    return waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
  };

  it('lists RSA, P-256 and secp256k1 credentials with pin_per_signature: true (read once, at sync)', () => {
    expect(credentials.map((c) => [c.type, c.name, c.pin_per_signature]).sort()).toEqual([
      ['evm', 'secp256k1-wallet', true],
      ['pades', 'p256-signer', true],
      ['pades', 'rsa-signer', true],
    ]);
  });

  it('signs PAdES with RSA and P-256 (pdfsig: valid) and EVM (ethers recovers the address), each C_Sign after a C_Login(CKU_CONTEXT_SPECIFIC)', async () => {
    const before = spySequence(spyLog).length;
    const rootPem = join(scratch, 'root.pem');
    writeFileSync(rootPem, new X509Certificate(Buffer.from(token.ca.root)).toString());
    for (const c of credentials.filter((x) => x.type === 'pades')) {
      const result = await sign('/v1/pades/sign', { pdf_base64: pdfBase64, credential_key: c.credential_key, signer_name: 'Card Holder' });
      expect(result.status, JSON.stringify(result)).toBe('DONE');
      const file = join(scratch, `${c.name}.pdf`);
      writeFileSync(file, Buffer.from(String(result.pdf_base64), 'base64'));
      const pdfsig = await runPdfsig(file);
      expect(pdfsig.signatures.map((x) => x.validation), pdfsig.raw).toEqual(['Signature is Valid.']);
    }
    const wallet = credentials.find((c) => c.type === 'evm')!;
    const hash = '0x' + 'ab'.repeat(32);
    const evm = await sign('/v1/blockchain/sign', { tx_hash: hash, credential_key: wallet.credential_key, chain_id: 1 });
    expect(evm.status, JSON.stringify(evm)).toBe('DONE');
    expect(recoverAddress(hash, Signature.from({ r: String(evm.r), s: String(evm.s), yParity: Number(evm.y_parity) as 0 | 1 }))).toBe(wallet.address);

    const calls = spySequence(spyLog).slice(before);
    const signs = calls.map((c, i) => ({ c, i })).filter(({ c }) => c.name === 'C_Sign');
    expect(signs.length).toBeGreaterThanOrEqual(3);
    for (const { i } of signs) {
      const init = calls.slice(0, i).map((c) => c.name).lastIndexOf('C_SignInit');
      const between = calls.slice(init + 1, i);
      expect(between.filter((c) => c.name === 'C_Login').map((c) => [c.userType, c.rv])).toEqual([['CKU_CONTEXT_SPECIFIC', 'CKR_OK']]);
      expect(calls[i]!.rv).toBe('CKR_OK');
    }
    // Never the PIN in what the service wrote or answered.
    expect(filesContaining(home.home, token.pin)).toEqual([]);
    expect(service.output()).not.toContain(token.pin);
    // `localsign status` shows the chip as present and each key's PIN per signature.
    const status = runCli(['status', '--json'], { home: home.home });
    expect(status.status, status.stderr).toBe(0);
    const shown = parseJson<{ chip: string; chip_credentials: { name: string; pin_per_signature: boolean }[] }>(status);
    expect(shown.chip).toBe('present');
    expect(shown.chip_credentials.map((c) => [c.name, c.pin_per_signature]).sort()).toEqual([
      ['p256-signer', true],
      ['rsa-signer', true],
      ['secp256k1-wallet', true],
    ]);
    expect(runCli(['status'], { home: home.home }).stdout).toMatch(/chip credential \S+ \(rsa-signer\): PIN stored or on the PIN pad, PIN for every signature/);
  });

  it('a PIN the token refuses in the context-specific login: 10 requests, one login attempt with it', async () => {
    // The session stays logged in as the user; the PIN file changes underneath (an operator's
    // typo), so only the signature's own login, which reads the file afresh, sees the wrong PIN.
    writeFileSync(pinFile, '5678-wrong', { mode: 0o600 });
    const before = spySequence(spyLog).length;
    const wallet = credentials.find((c) => c.type === 'evm')!;
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: '0x' + i.toString(16).padStart(2, '0').repeat(32), credential_key: wallet.credential_key }) });
        return ((await res.json()) as { request_id: string }).request_id;
      }),
    );
    const results = [];
    for (const id of ids) results.push(await waitForResult(call, id));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill('ERROR'));
    const logins = spySequence(spyLog).slice(before).filter((c) => c.name === 'C_Login');
    expect(logins.map((c) => [c.userType, c.rv])).toEqual([['CKU_CONTEXT_SPECIFIC', 'CKR_PIN_INCORRECT']]);
    for (const r of results) {
      expect(String(r.error)).toMatch(/PIN incorrect on token 'always-auth' \(C_Login\(CKU_CONTEXT_SPECIFIC\): CKR_PIN_INCORRECT\); no further login will be tried/);
      expect(String(r.error)).not.toContain(token.pin);
    }
    const health = (await (await fetch(`${service.url}/health`)).json()) as { chip: string };
    expect(health.chip).toBe('pin_rejected');
  });
});
