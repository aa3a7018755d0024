import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalsignAnswerError, LocalsignClient, LocalsignServiceProofError } from '../../../clients/typescript/src/index';
import { smallPdf } from '../../helpers/api-fixtures';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { freePort, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { startSquatter, type Squatter, type SquatterLogEntry } from '../../helpers/squatter';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure } from './_cli-expect';
import { tempDir } from '../../helpers/temp-dir';

/**
 * Issue 31, "any local user can stand in for the service": programs of their own (squatter/main.ts)
 * on the service's address. The client and the CLI must refuse them, and they must receive no
 * secret, no document and no PIN; a relay that passes the service's proof through but replaces the
 * signing results must see them refused by the check against the credential.
 */
const TX_HASH = '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';
const PIN = '73194628';
const MARKER = 'squatter-must-never-see-this-document';

const work = tempDir('localsign-squatter-');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Everything a squatter received, as one text: request lines, headers and bodies. */
const text = (log: SquatterLogEntry[]) => log.map((e) => `${e.method} ${e.url}\n${JSON.stringify(e.headers)}\n${e.body}`).join('\n');

describe('the service down: squatters on 127.0.0.1 and [::1] at its port', () => {
  const tmp = makeTmpHome();
  let creds: { key: string; secret: string };
  let port = 0;
  let v4: Squatter;
  let v6: Squatter;
  let pdf: Buffer;
  const env = () => ({ LOCALSIGN_KEY: creds.key, LOCALSIGN_SECRET: creds.secret });

  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(tmp.home);
    port = await freePort();
    [v4, v6] = await Promise.all([startSquatter({ host: '127.0.0.1', port }), startSquatter({ host: '::1', port })]);
    pdf = await smallPdf(MARKER);
    writeFileSync(join(work, 'in.pdf'), pdf);
  });
  afterAll(async () => {
    await Promise.all([v4, v6].map((s) => s?.stop()));
    tmp.cleanup();
  });

  it('the client sends neither a document nor a PIN to either, by address or by localhost, and believes none of their answers', async () => {
    for (const base of [`http://127.0.0.1:${port}`, `http://[::1]:${port}`, `http://localhost:${port}`]) {
      const client = new LocalsignClient({ baseUrl: base, ...creds });
      const refusals = [
        () => client.signPdf({ pdf, credential_key: 'any' }),
        () => client.signPdf({ pdf, credential_key: 'any', chip_pin: PIN }, { transport: 'json' }),
        () => client.signPdf({ pdf, credential_key: 'any' }, { transport: 'raw' }),
        () => client.verifyPdf({ pdf }),
        () => client.signHash({ tx_hash: TX_HASH, credential_key: 'any', chip_pin: PIN }),
        // No document or PIN in these: they go, signed, and their answers are refused.
        () => client.signHash({ tx_hash: TX_HASH, credential_key: 'any' }),
        () => client.listCredentials(),
        () => client.waitFor('req_squatter0000000'),
        () => client.health({ prove: true }),
      ];
      for (const [i, call] of refusals.entries()) await expect(call(), `${base} #${i}`).rejects.toBeInstanceOf(LocalsignServiceProofError);
    }
  });

  it('the CLI: sign pdf, sign hash and status (with a key) exit 3 in one line, print nothing, write nothing', async () => {
    const out = join(work, 'out.pdf');
    const where = [['--url', `http://[::1]:${port}`], ['--url', `http://localhost:${port}`], ['--port', String(port)]];
    for (const at of where) {
      const shown = at[0] === '--port' ? `http://127.0.0.1:${port}` : at[1]!;
      const pdfRun = await runCliAsync(['sign', 'pdf', join(work, 'in.pdf'), '-o', out, '--credential', 'any', ...at], { home: tmp.home, env: env() });
      expect(expectOneLineFailure(pdfRun, 3)).toBe(
        `the peer at ${shown} did not prove it is the localsign service that holds this key: the X-Localsign-Proof of its 200 answer to GET /health is not this key's (another program holds that address, or the key or secret is wrong or revoked)`,
      );
      expect([pdfRun.stdout, existsSync(out)]).toEqual(['', false]);
      const hashRun = await runCliAsync(['sign', 'hash', TX_HASH, '--credential', 'any', ...at], { home: tmp.home, env: env() });
      expect(expectOneLineFailure(hashRun, 3)).toMatch(new RegExp(`^the peer at ${shown.replace(/[[\]]/g, '\\$&')} did not prove it is the localsign service that holds this key: the X-Localsign-Proof of its 202 answer to POST /v1/blockchain/sign is not this key's`));
      expect(hashRun.stdout).toBe('');
    }
    const status = await runCliAsync(['status', '--json', '--port', String(port)], { home: tmp.home, env: env() });
    expect(expectOneLineFailure(status, 3)).toMatch(/^the peer at http:\/\/127\.0\.0\.1:\d+ did not prove it is the localsign service that holds this key: /);
    expect(parseJson(status)).toEqual({ reachable: false, proven: false, url: `http://127.0.0.1:${port}/health`, config_dir: tmp.home });
  });

  it('what they received: no secret, no document, no PIN', async () => {
    const [got4, got6] = await Promise.all([v4.received(), v6.received()]);
    // Both were asked (the test is not vacuous), and only ever proved against or sent a signed hash.
    expect(got4.length).toBeGreaterThan(5);
    expect(got6.length).toBeGreaterThan(5);
    const all = [...got4, ...got6];
    expect([...new Set(all.map((e) => `${e.method} ${e.url.split('?')[0]}`))].sort()).toEqual(['GET /health', 'GET /v1/credentials', 'GET /v1/results/req_squatter0000000', 'POST /v1/blockchain/sign']);
    const seen = text(all);
    const secretHash = createHash('sha256').update(creds.secret).digest('hex');
    for (const secret of [creds.secret, secretHash, PIN, MARKER, pdf.toString('base64').slice(0, 40), '%PDF-']) expect(seen, secret).not.toContain(secret);
    expect(all.some((e) => 'x-wrapper-secret' in e.headers)).toBe(false);
  });
});

describe('a relay that passes the service\'s proof through but replaces the results', () => {
  const tmp = makeTmpHome();
  let creds: { key: string; secret: string };
  let service: ServiceProcess;
  let relay: Squatter;
  let direct: LocalsignClient;
  let relayed: LocalsignClient;
  let pades: string[] = [];
  let evm: { key: string; address: string };
  let input: Buffer;
  const env = () => ({ LOCALSIGN_KEY: creds.key, LOCALSIGN_SECRET: creds.secret });

  beforeAll(async () => {
    creds = initEmbeddedWithWrapper(tmp.home);
    service = await startServiceProcess({ home: tmp.home });
    relay = await startSquatter({ host: '127.0.0.1', port: 0, relay: service.url });
    direct = new LocalsignClient({ baseUrl: service.url, ...creds });
    relayed = new LocalsignClient({ baseUrl: relay.url, ...creds });
    const list = (await direct.listCredentials()).credentials;
    pades = list.filter((c) => c.type === 'pades').map((c) => c.credential_key);
    const e = list.find((c) => c.type === 'evm')!;
    evm = { key: e.credential_key, address: e.address! };
    input = await smallPdf('relay input');
    writeFileSync(join(work, 'relay-in.pdf'), input);
  });
  afterAll(async () => {
    await relay?.stop();
    await service?.stop();
    tmp.cleanup();
  });

  it('passes the service\'s own answers: the relay itself is no failure', async () => {
    await relay.forge({});
    const hash = await relayed.waitFor((await relayed.signHash({ tx_hash: TX_HASH, credential_key: evm.key, chain_id: 1 })).request_id);
    expect(hash).toMatchObject({ status: 'DONE', address: evm.address });
    const signed = await relayed.waitForPdf((await relayed.signPdf({ pdf: input, credential_key: pades[0]! })).request_id);
    expect(signed.status).toBe('DONE');
  });

  it('status with a key: the service proved it holds it', async () => {
    const json = parseJson<Record<string, unknown>>(await runCliAsync(['status', '--json', '--port', String(service.port)], { home: tmp.home, env: env() }));
    expect(json).toMatchObject({ service: 'local-signing-service', reachable: true, proven: true, config_dir: tmp.home });
    const human = await runCliAsync(['status', '--port', String(service.port)], { home: tmp.home, env: env() });
    expect(human.stdout).toMatch(new RegExp(`; config dir ${tmp.home}; it proved it holds ${creds.key}\n$`));
    const wrong = await runCliAsync(['status', '--port', String(service.port)], { home: tmp.home, env: { ...env(), LOCALSIGN_SECRET: 'wsec_wrong' } });
    expect(expectOneLineFailure(wrong, 3)).toMatch(/is not this key's \(another program holds that address, or the key or secret is wrong or revoked\)$/);
  });

  it('an EVM signature by another key is refused, whatever address it names; the CLI prints none of it', async () => {
    const other = Wallet.createRandom();
    const sig = other.signingKey.sign(TX_HASH);
    const madeUp = { r: sig.r, s: sig.s, y_parity: sig.yParity, v: 37 + sig.yParity };
    await relay.forge({ json: { ...madeUp, address: evm.address } });
    const accepted = await relayed.signHash({ tx_hash: TX_HASH, credential_key: evm.key, chain_id: 1 });
    const e = await relayed.waitFor(accepted.request_id).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LocalsignAnswerError);
    expect((e as Error).message).toBe(`the result of ${accepted.request_id} does not match credential ${evm.key}, so it was not used: the signature recovers to ${other.address} over the requested hash, not to the credential's address ${evm.address}`);
    await relay.forge({ json: { ...madeUp, address: other.address } });
    await expect(relayed.waitFor((await relayed.signHash({ tx_hash: TX_HASH, credential_key: evm.key, chain_id: 1 })).request_id)).rejects.toThrow(`the answer names address ${other.address}, the credential's is ${evm.address}`);

    // The service's own answer for another request is no answer for this one.
    const earlier = await direct.waitFor((await direct.signHash({ tx_hash: TX_HASH, credential_key: evm.key, chain_id: 1 })).request_id);
    await relay.forge({ json: earlier as unknown as Record<string, unknown> });
    const asked = await relayed.signHash({ tx_hash: TX_HASH, credential_key: evm.key, chain_id: 1 });
    await expect(relayed.waitFor(asked.request_id)).rejects.toThrow(`so it was not used: it is the result of ${earlier.request_id}`);

    await relay.forge({ json: { ...madeUp, address: other.address } });
    const cli = await runCliAsync(['sign', 'hash', TX_HASH, '--credential', evm.key, '--chain-id', '1', '--url', relay.url], { home: tmp.home, env: env() });
    expect(expectOneLineFailure(cli, 5)).toMatch(new RegExp(`^the result of req_\\S+ does not match credential ${evm.key}, so it was not used: the answer names address ${other.address}`));
    expect(cli.stdout).toBe('');
    expect(cli.stderr).not.toContain(sig.r.slice(2));
  });

  it('a PDF signed by the other credential, or signed over another input, is refused; the CLI writes nothing', async () => {
    // Genuine signatures by the service: the same input under the other credential, another input under this one.
    const byOther = await direct.waitForPdf((await direct.signPdf({ pdf: input, credential_key: pades[1]! })).request_id);
    const otherInput = await direct.waitForPdf((await direct.signPdf({ pdf: await smallPdf('another document'), credential_key: pades[0]! })).request_id);
    if (byOther.status !== 'DONE' || otherInput.status !== 'DONE') throw new Error('the service did not sign');

    await relay.forge({ pdf_base64: Buffer.from(byOther.pdf).toString('base64') });
    for (const transport of ['json', 'raw'] as const) {
      const accepted = await relayed.signPdf({ pdf: input, credential_key: pades[0]! }, { transport });
      await expect(relayed.waitForPdf(accepted.request_id)).rejects.toThrow(new RegExp(`^the result of ${accepted.request_id} does not match credential ${pades[0]}, so it was not used: the last signature's signer \\(serial number [0-9a-f]+ of its issuer\\) is not the credential's certificate$`));
      // The JSON result route too.
      await expect(relayed.getResult(accepted.request_id)).rejects.toBeInstanceOf(LocalsignAnswerError);
    }
    await relay.forge({ pdf_base64: Buffer.from(otherInput.pdf).toString('base64') });
    await expect(relayed.waitForPdf((await relayed.signPdf({ pdf: input, credential_key: pades[0]! })).request_id)).rejects.toThrow(/: the \d+ bytes sent are not an exact prefix of the \d+-byte signed PDF$/);

    const out = join(work, 'relay-out.pdf');
    const cli = await runCliAsync(['sign', 'pdf', join(work, 'relay-in.pdf'), '-o', out, '--credential', pades[0]!, '--url', relay.url], { home: tmp.home, env: env() });
    expect(expectOneLineFailure(cli, 5)).toMatch(/: the \d+ bytes sent are not an exact prefix of the \d+-byte signed PDF$/);
    expect(existsSync(out)).toBe(false);
    const piped = await runCliAsync(['sign', 'pdf', join(work, 'relay-in.pdf'), '-o', '-', '--credential', pades[0]!, '--url', relay.url], { home: tmp.home, env: env() });
    expect([piped.status, piped.stdout]).toEqual([5, '']);
    expect(readFileSync(join(work, 'relay-in.pdf')).equals(input)).toBe(true);
  });
});
