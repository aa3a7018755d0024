import { readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { Signature, recoverAddress } from 'ethers';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECP256K1_N } from '../../../src/evm';
import { parseJson, runCli } from '../../helpers/cli';
import { filesContaining } from '../cli/_cli-expect';
import { extractCms, opensslCmsVerify, runPdfsig } from '../../helpers/pdf-tools';
import { authed, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmToken, SOFTHSM_MODULE, type SoftHsmToken } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';

interface Credential {
  credential_key: string;
  type: string;
  name: string;
  engine: string;
  address?: string;
  certificate_chain?: string[];
}

/** Issue 4 "Done when": a SoftHSM2 token as the chip, driven through init, the CLI and the HTTP API. */
describe('PKCS#11 token through the service', () => {
  const home = makeTmpHome();
  let token: SoftHsmToken;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let credentials: Credential[];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    token = await createSoftHsmToken({ label: 'api-token' });
    // The PIN reaches the service through the variable the operator named, never argv or a file.
    env = { SOFTHSM2_CONF: token.conf, LOCALSIGN_CHIP_PIN: token.pin };
    const init = runCli(['init', '--embedded', '--chip-module', SOFTHSM_MODULE, '--chip-token', token.label, '--chip-pin-env', 'LOCALSIGN_CHIP_PIN', '--json'], { home: home.home, env });
    expect(init.status, init.stderr).toBe(0);
    expect(parseJson(init)).toMatchObject({ paired: true, chip: 'pkcs11', credentials: 3, designs: 2 });
    const wrapper = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: home.home }));
    service = await startServiceProcess({ home: home.home, env });
    call = authed(service.url, wrapper);
    credentials = ((await (await call('/v1/credentials')).json()) as { credentials: Credential[] }).credentials;
  });

  afterAll(async () => {
    await service?.stop();
    await token?.cleanup();
    home.cleanup();
  });

  it('lists the token keys as credentials with the chain the token holds', () => {
    expect(credentials.map((c) => [c.type, c.engine, c.name]).sort()).toEqual([
      ['evm', 'chip', 'secp256k1-wallet'],
      ['pades', 'chip', 'p256-signer'],
      ['pades', 'chip', 'rsa-signer'],
    ]);
    for (const c of credentials.filter((x) => x.type === 'pades')) {
      const chain = c.certificate_chain!.map((b) => new X509Certificate(Buffer.from(b, 'base64')));
      const cn = (x: X509Certificate) => x.subject.split('\n').find((l) => l.startsWith('CN='));
      // Signer first, root last: the signer's own certificate, then what the token holds above it.
      expect(chain.slice(1).map(cn)).toEqual(['CN=Test Intermediate CA', 'CN=Test Root CA']);
      expect(chain[0]!.checkIssued(chain[1]!)).toBe(true);
      expect(chain[1]!.checkIssued(chain[2]!)).toBe(true);
    }
  });

  it('signs PDFs with the RSA and P-256 keys on the token; pdfsig and openssl cms accept them', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([300, 300]);
    const pdf = Buffer.from(await doc.save());
    const rootPem = join(home.home, 'test-root.pem');
    writeFileSync(rootPem, new X509Certificate(Buffer.from(token.ca.root)).toString());
    for (const c of credentials.filter((x) => x.type === 'pades')) {
      const res = await call('/v1/pades/sign', { method: 'POST', body: JSON.stringify({ pdf_base64: pdf.toString('base64'), credential_key: c.credential_key, signer_name: 'Token Tester' }) });
      expect(res.status).toBe(202);
      const result = await waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
      expect(result.status, JSON.stringify(result)).toBe('DONE');
      const signed = new Uint8Array(Buffer.from(String(result.pdf_base64), 'base64'));
      const file = join(home.home, `signed-${c.name}.pdf`);
      writeFileSync(file, signed);
      const sig = await runPdfsig(file);
      expect(sig.signatures).toHaveLength(1);
      expect(sig.signatures[0]).toMatchObject({ signatureValid: true, coversWholeDocument: true });
      const { cms, signedBytes } = extractCms(signed, 0);
      expect((await opensslCmsVerify(cms, signedBytes, rootPem)).ok).toBe(true);
    }
  });

  it('makes 200 EVM signatures on the token that recover to its address, all low-s', async () => {
    const evm = credentials.find((c) => c.type === 'evm')!;
    const hashes = Array.from({ length: 200 }, () => '0x' + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex'));
    const ids: string[] = [];
    for (let i = 0; i < hashes.length; i += 20) {
      const batch = await Promise.all(
        hashes.slice(i, i + 20).map(async (h, j) => {
          const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: h, credential_key: evm.credential_key, chain_id: (i + j) % 2 ? 137 : null }) });
          expect(res.status).toBe(202);
          return ((await res.json()) as { request_id: string }).request_id;
        }),
      );
      ids.push(...batch);
    }
    const halfN = SECP256K1_N / 2n;
    for (let k = 0; k < ids.length; k += 1) {
      const r = await waitForResult(call, ids[k]!);
      expect(r.status, JSON.stringify(r)).toBe('DONE');
      expect(BigInt(String(r.s))).toBeLessThanOrEqual(halfN);
      const chainId = k % 2 ? 137 : null;
      expect(r.chain_id).toBe(chainId);
      expect(r.v).toBe(chainId === null ? 27 + Number(r.y_parity) : chainId * 2 + 35 + Number(r.y_parity));
      expect(recoverAddress(hashes[k]!, Signature.from({ r: String(r.r), s: String(r.s), yParity: Number(r.y_parity) as 0 | 1 }))).toBe(evm.address);
    }
  });

  it('turns a pulled token into a clear ERROR and a 502 on sync, and recovers when it is back', async () => {
    const evm = credentials.find((c) => c.type === 'evm')!;
    const sign = async () => {
      const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: '0x' + 'ab'.repeat(32), credential_key: evm.credential_key }) });
      expect(res.status).toBe(202);
      return waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
    };
    await token.unplug();
    try {
      const failed = await sign();
      expect(failed.status).toBe('ERROR');
      expect(String(failed.error)).toMatch(/token .*api-token.* (is )?not present|not present/i);
      expect(String(failed.error_id)).toMatch(/^err_/);
      const sync = await call('/v1/sync', { method: 'POST' });
      expect(sync.status).toBe(502);
      const body = (await sync.json()) as { error: string; error_id: string };
      expect(body.error).toMatch(/not present/i);
      // The old cache stays.
      expect(((await (await call('/v1/credentials')).json()) as { credentials: unknown[] }).credentials).toHaveLength(3);
      const errors = (await (await call(`/v1/errors?request_id=${String(failed.request_id)}`)).json()) as { errors: { error_id: string; status: number | null }[] };
      expect(errors.errors[0]).toMatchObject({ error_id: failed.error_id, status: null });
    } finally {
      await token.plug();
    }
    const ok = await sign();
    expect(ok.status, JSON.stringify(ok)).toBe('DONE');
    expect(ok.address).toBe(evm.address);
  });

  it('never writes the PIN to a log, a record, the process listing or the config dir', () => {
    const cmdline = readFileSync(`/proc/${service.child.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain(token.pin);
    // Every file under the config dir, results and work files included.
    expect(filesContaining(home.home, token.pin)).toEqual([]);
    expect(service.output()).not.toContain(token.pin);
  });
});
