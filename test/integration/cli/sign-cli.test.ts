import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { recoverAddress, Signature } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallPdf } from '../../helpers/api-fixtures';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { qpdfSignatureFields, runPdfsig, runTool } from '../../helpers/pdf-tools';
import { freePort, initEmbeddedWithWrapper, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { expectOneLineFailure, runOnTty } from './_cli-expect';
import { tempDir } from '../../helpers/temp-dir';

/**
 * `localsign sign pdf|hash`, `results`, `errors`, `credentials`, `designs` (issue 11): through the
 * running service, found by its config dir whatever its port, with the key from the environment.
 */
const TX_HASH = '0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53';

describe('CLI signing through the running service', () => {
  const tmp = makeTmpHome();
  const home = tmp.home;
  const work = tempDir('localsign-sign-cli-');
  let service: ServiceProcess;
  let env: NodeJS.ProcessEnv;
  let pades = '';
  let evm = '';
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => runCliAsync(args, { home, env: { ...env, ...extraEnv } });

  beforeAll(async () => {
    const creds = initEmbeddedWithWrapper(home);
    env = { LOCALSIGN_KEY: creds.key, LOCALSIGN_SECRET: creds.secret };
    service = await startServiceProcess({ home });
    const list = parseJson<{ credentials: { type: string; credential_key: string }[] }>(await cli(['credentials', '--json']));
    pades = list.credentials.find((c) => c.type === 'pades')!.credential_key;
    evm = list.credentials.find((c) => c.type === 'evm')!.credential_key;
    writeFileSync(join(work, 'in.pdf'), await smallPdf('CLI signing'));
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('sign pdf writes a PDF that pdfsig accepts, the input its exact prefix', async () => {
    const out = join(work, 'out.pdf');
    const r = await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', out, '--credential', pades, '--reason', 'CLI test', '--location', 'Madrid', '--signer-name', 'Ana García', '--var', 'reference=REF-7']);
    expect(r.stderr).toBe(''); // no progress line on a pipe
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Signed ${join(work, 'in.pdf')} -> ${out} \\(\\d+ bytes, req_[A-Za-z0-9_-]+\\)$`));
    // Where to look: the page and the box, as qpdf reads the widget the signature added.
    const where = /^Stamp on page (\d+) of (\d+) at x ([\d.]+), y ([\d.]+) \(([\d.]+) x ([\d.]+) pt\)$/.exec(lines[1] ?? '');
    expect(where, r.stdout).not.toBeNull();
    expect(lines.slice(2)).toEqual(['']);
    const read = await qpdfSignatureFields(out);
    expect(read.fields).toHaveLength(1);
    const [x1, y1, x2, y2] = read.fields[0]!.rect as [number, number, number, number];
    expect(where!.slice(1).map(Number)).toEqual([read.fields[0]!.page, read.pageCount, ...[x1, y1, x2 - x1, y2 - y1].map((v) => Math.round(v * 10) / 10)]);
    const input = readFileSync(join(work, 'in.pdf'));
    const signed = readFileSync(out);
    expect(signed.subarray(0, input.length).equals(input)).toBe(true);
    const sig = await runPdfsig(out);
    expect(sig.signatures.map((s) => [s.validation, s.coversWholeDocument])).toEqual([['Signature is Valid.', true]]);
    expect(sig.raw).toContain('Signer full Distinguished Name');
  });

  it('sign hash prints r, s, v, y_parity, address; --json is the result; ethers recovers it', async () => {
    const human = await cli(['sign', 'hash', TX_HASH, '--credential', evm, '--chain-id', '1']);
    expect(human.status).toBe(0);
    const fields = Object.fromEntries(human.stdout.trim().split('\n').map((l) => l.split(': ') as [string, string]));
    expect(Object.keys(fields)).toEqual(['r', 's', 'v', 'y_parity', 'address', 'chain_id', 'request_id']);
    expect(recoverAddress(TX_HASH, Signature.from({ r: fields.r!, s: fields.s!, v: Number(fields.v) }))).toBe(fields.address);

    const json = parseJson<{ r: string; s: string; v: number; y_parity: number; address: string; chain_id: number | null }>(await cli(['sign', 'hash', TX_HASH.slice(2), '--credential', evm, '--json']));
    expect(json.chain_id).toBeNull();
    expect(json.v).toBe(27 + json.y_parity);
    expect(recoverAddress(TX_HASH, Signature.from({ r: json.r, s: json.s, v: json.v }))).toBe(json.address);
  });

  it('results, errors, credentials and designs show what the key sees', async () => {
    const results = parseJson<{ results: { kind: string; status: string }[] }>(await cli(['results', '--limit', '2', '--json']));
    expect(results.results.map((r) => [r.kind, r.status])).toEqual([['blockchain', 'DONE'], ['blockchain', 'DONE']]);
    const table = await cli(['results']);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
    expect(table.stdout).toMatch(/^req_\S+ {2}DONE {5}blockchain/);
    const designs = await cli(['designs']);
    expect(designs.stdout).toMatch(/Approval stamp: approval_id \(required\), signer_name/);
    const creds = await cli(['credentials']);
    expect(creds.stdout.trim().split('\n')).toHaveLength(3);

    const refused = await cli(['sign', 'hash', '0x1234', '--credential', evm]);
    const line = expectOneLineFailure(refused, 4);
    const errorId = /\((?:HTTP 422), (err_\S+)\)$/.exec(line)?.[1];
    expect(line).toBe(`tx_hash must be 64 hex digits after an optional 0x prefix, got 4 hex digits (HTTP 422, ${errorId})`);
    const errors = parseJson<{ errors: { error_id: string; status: number }[] }>(await cli(['errors', '--limit', '1', '--json']));
    expect(errors.errors).toEqual([expect.objectContaining({ error_id: errorId, status: 422 })]);
  });

  it('exit codes say what failed: 2 usage, 3 unreachable, 4 refused, 1 a local problem', async () => {
    expect(expectOneLineFailure(await cli(['sign', 'pdf', join(work, 'in.pdf'), '--credential', pades]), 2)).toBe('missing -o/--out for sign pdf: Where to write the signed PDF (written atomically; "-" for stdout) (see `localsign sign pdf --help`)');
    expect(expectOneLineFailure(await cli(['sign', 'hash', TX_HASH, '--credential', evm, '--chain-id', 'one']), 2)).toBe('--chain-id must be a positive integer, got "one"');
    expect(expectOneLineFailure(await cli(['sign', 'hash', TX_HASH, '--credential', evm], { LOCALSIGN_KEY: '' }), 2)).toBe(
      'no application key: set LOCALSIGN_KEY and LOCALSIGN_SECRET (from `localsign wrapper:create` or `serve --demo`), or pass --key and --secret-file',
    );
    const closed = await freePort();
    expect(expectOneLineFailure(await cli(['credentials', '--url', `http://127.0.0.1:${closed}`]), 3)).toBe(
      `localsign is not reachable at http://127.0.0.1:${closed} (ECONNREFUSED): is \`localsign serve\` running?`,
    );
    const wrongSecret = expectOneLineFailure(await cli(['credentials'], { LOCALSIGN_SECRET: 'wsec_wrong' }), 4);
    expect(wrongSecret).toMatch(/^missing or invalid application credentials \(X-Wrapper-Key, X-Wrapper-Secret\) \(HTTP 401, err_\S+\); check LOCALSIGN_KEY and LOCALSIGN_SECRET \(or --key\/--secret-file\)$/);
    const wrongType = expectOneLineFailure(await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', join(work, 'x.pdf'), '--credential', evm]), 4);
    expect(wrongType).toMatch(/is an evm credential; PAdES signing needs a pades one \(HTTP 422, err_/);
    // Checked before anything is sent: a missing folder is named, not a temp file.
    const before = parseJson<{ results: unknown[] }>(await cli(['results', '--json'])).results.length;
    const noDir = expectOneLineFailure(await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', join(work, 'missing/out.pdf'), '--credential', pades]), 1);
    expect(noDir).toBe(`cannot write ${join(work, 'missing/out.pdf')}: the folder ${join(work, 'missing')} does not exist`);
    expect(parseJson<{ results: unknown[] }>(await cli(['results', '--json'])).results.length).toBe(before);
    expect(expectOneLineFailure(await cli(['sign', 'pdf', join(work, 'nope.pdf'), '-o', join(work, 'x.pdf'), '--credential', pades]), 1)).toBe(`cannot read ${join(work, 'nope.pdf')}: no such file or folder (ENOENT)`);
    expect(existsSync(join(work, 'x.pdf'))).toBe(false);
  });

  it("sign pdf prints the result's warnings on stderr, and --json carries them (issue 19)", async () => {
    const input = join(work, 'in.pdf');
    const long = `Ana ${'García'.repeat(166)}`; // 1,000 characters: the documented maximum
    const warning = /^warning: stamp line 1 was shortened to fit the stamp's width at 6 pt: \d+ of its 1020 characters are shown, cut with "…" \("Digitally signed by Ana GarcíaGarcía/;
    // Every other line of the default stamp filled, so the long name's is the one warning.
    const rest = ['--reason', 'Approval', '--location', 'Madrid', '--var', 'reference=INV-42'];
    const human = await cli(['sign', 'pdf', input, '-o', join(work, 'long.pdf'), '--credential', pades, '--signer-name', long, ...rest]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stderr.split('\n').filter(Boolean)).toEqual([expect.stringMatching(warning)]);
    expect(human.stdout).toMatch(/^Signed .* -> .*long\.pdf \(\d+ bytes, req_\S+\)\nStamp on page 1 of 1 at .*\n$/);
    expect((await runPdfsig(join(work, 'long.pdf'))).signatures.map((s) => s.validation)).toEqual(['Signature is Valid.']);

    const json = await cli(['sign', 'pdf', input, '-o', join(work, 'long-json.pdf'), '--credential', pades, '--signer-name', long, ...rest, '--json']);
    const answer = parseJson<{ status: string; warnings: string[] }>(json);
    expect(answer.status).toBe('DONE');
    expect(answer.warnings).toEqual([expect.stringMatching(new RegExp(warning.source.replace('^warning: ', '^')))]);
    expect(json.stderr.split('\n').filter(Boolean)).toEqual([`warning: ${answer.warnings[0]}`]);

    // The signed PDF on stdout: the warning still reaches the user, on stderr.
    const piped = await cli(['sign', 'pdf', input, '-o', '-', '--credential', pades, '--signer-name', long, ...rest]);
    expect(piped.stdout.startsWith('%PDF-')).toBe(true);
    expect(piped.stderr).toMatch(warning);
    expect(piped.stderr).toMatch(/\nStamp on page 1 of 1 at x [\d.]+, y [\d.]+ \([\d.]+ x [\d.]+ pt\)\n$/);

    const quiet = parseJson<{ warnings: string[] }>(await cli(['sign', 'pdf', input, '-o', join(work, 'short.pdf'), '--credential', pades, '--signer-name', 'Ana', ...rest, '--json']));
    expect(quiet.warnings).toEqual([]);
  });

  it('a stamp line with no value for its placeholders is left out and named, not drawn blank', async () => {
    // The integrators' guide's example leaves {{reference}} to a variable; without it the line is empty.
    const r = await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', join(work, 'no-ref.pdf'), '--credential', pades, '--signer-name', 'Ana García', '--reason', 'Approval', '--location', 'Madrid', '--json']);
    const answer = parseJson<{ warnings: string[]; stamp: { page: number; page_count: number; rect: number[] } }>(r);
    expect(answer.warnings).toEqual(['stamp line 5 is not drawn: its placeholder {{reference}} has no value in this request (give variables.reference), and the line would read as blank']);
    expect(answer.stamp).toMatchObject({ page: 1, page_count: 1 });
    expect((await qpdfSignatureFields(join(work, 'no-ref.pdf'))).fields.map((f) => f.rect)).toEqual([answer.stamp.rect]);
    // Its text is not in the stamp: pdftotext reads every other line and no "reference".
    const text = (await runTool('pdftotext', [join(work, 'no-ref.pdf'), '-'])).stdout;
    expect(text).toContain('Location: Madrid');
  });

  it('a --url without http:// is a usage error saying so, not "not reachable" (issue 19)', async () => {
    expect(expectOneLineFailure(await cli(['credentials', '--url', '127.0.0.1:8300']), 2)).toBe(
      '--url (or LOCALSIGN_URL): base URL must start with http:// or https:// (got "127.0.0.1:8300"; for example http://127.0.0.1:8300)',
    );
  });

  it('credentials --chain KEY lists the chain; --pem writes its root, which verify --trust takes (issue 19)', async () => {
    const human = await cli(['credentials', '--chain', pades]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^1\. CN=Demo Signer \(P-256\),O=localsign demo \(not trusted\) {2}\(signer\)\n2\. CN=localsign Demo Root CA,O=localsign demo \(not trusted\) {2}\(root\)\n$/);
    const chain = parseJson<{ certificate_chain: string[] }>(await cli(['credentials', '--chain', pades, '--json'])).certificate_chain;
    expect(chain).toHaveLength(2);

    // stdout: the root alone, as PEM, the same certificate as the chain's last.
    const pem = await cli(['credentials', '--chain', pades, '--pem']);
    expect(pem.status, pem.stderr).toBe(0);
    expect(pem.stderr).toBe('');
    const body = /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=\n]+)\n-----END CERTIFICATE-----\n$/.exec(pem.stdout)?.[1];
    expect(body?.replace(/\n/g, '')).toBe(chain[1]);
    expect(body!.split('\n').every((l) => l.length <= 64)).toBe(true);

    const root = join(work, 'demo-root.pem');
    const wrote = await cli(['credentials', '--chain', pades, '--pem', '--out', root]);
    expect(wrote.stdout).toBe(`Wrote the root of ${pades} (CN=localsign Demo Root CA,O=localsign demo (not trusted)) to ${root}\n`);
    expect(readFileSync(root, 'utf8')).toBe(pem.stdout);
    const signed = join(work, 'to-verify.pdf');
    expect((await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', signed, '--credential', pades])).status).toBe(0);
    // A B-B signature carries no revocation data: trusted only when revocation is not required.
    const trusted = await cli(['verify', signed, '--trust', root, '--revocation', 'if-available']);
    // Valid then, and the text says the revocation check that could not be made.
    expect([trusted.status, trusted.stdout]).toEqual([
      0,
      '1. Signature1 (signature, B-B): VALID - CN=Demo Signer (P-256),O=localsign demo (not trusted)\n' +
        '     - note: the revocation of CN=Demo Signer (P-256),O=localsign demo (not trusted) was not checked: no CRL or OCSP response about it was found\n' +
        'overall: VALID\n',
    ]);
    // --online finds the demo CA's CRL in this config dir, though its URL names port 8300 and the
    // service runs on another: checked, no note.
    const online = await cli(['verify', signed, '--trust', root, '--online']);
    expect([online.status, online.stdout]).toEqual([0, '1. Signature1 (signature, B-B): VALID - CN=Demo Signer (P-256),O=localsign demo (not trusted)\noverall: VALID\n']);
    const strict = await cli(['verify', signed, '--trust', root]);
    expect(strict.status).toBe(1);
    expect(strict.stdout).toContain('chain: the revocation status of CN=Demo Signer (P-256),O=localsign demo (not trusted) cannot be determined (revocation: require)');
    const untrusted = await cli(['verify', signed]);
    expect(untrusted.status).toBe(1);
    expect(untrusted.stdout).toContain('chain: no trust anchors are configured (--trust FILE)');

    expect(expectOneLineFailure(await cli(['credentials', '--chain', evm, '--pem']), 1)).toBe(`${evm} is an evm credential: only pades credentials have a certificate chain`);
    expect(expectOneLineFailure(await cli(['credentials', '--chain', 'nope', '--pem']), 1)).toBe('no credential nope for this application key (`localsign credentials` lists them)');
    expect(expectOneLineFailure(await cli(['credentials', '--pem']), 2)).toBe('--pem and --out go with --chain KEY: localsign credentials --chain KEY --pem [--out root.pem]');
    expect(expectOneLineFailure(await cli(['credentials', '--chain', pades, '--out', root]), 2)).toBe('--out writes the root as PEM: add --pem');
    expect(expectOneLineFailure(await cli(['credentials', '--chain', pades, '--pem', '--out', join(work, 'missing/root.pem')]), 1)).toBe(`cannot write ${join(work, 'missing/root.pem')}: the folder ${join(work, 'missing')} does not exist`);
  });

  it('an empty --credential (an unset variable) is a usage error before anything is sent; --level and --certify reach the request', async () => {
    const errorsBefore = parseJson<{ errors: unknown[] }>(await cli(['errors', '--json'])).errors.length;
    const empty = await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', join(work, 'never.pdf'), '--credential', '']);
    expect(expectOneLineFailure(empty, 2)).toMatch(/^--credential is empty: give a pades credential_key/);
    const emptyHash = await cli(['sign', 'hash', TX_HASH, '--credential', ' ']);
    expect(expectOneLineFailure(emptyHash, 2)).toMatch(/^--credential is empty: give an evm credential_key/);
    expect(existsSync(join(work, 'never.pdf'))).toBe(false);
    // Nothing reached the service: no error record was made.
    expect(parseJson<{ errors: unknown[] }>(await cli(['errors', '--json'])).errors).toHaveLength(errorsBefore);
    const bad = await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', join(work, 'never.pdf'), '--credential', pades, '--level', 'B-X']);
    expect(expectOneLineFailure(bad, 2)).toBe('--level must be one of B-B, B-T, B-LT, B-LTA, got "B-X"');
    // B-T needs a timestamp authority this service has not: the service's 422 (exit 4) names it.
    const bt = await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', join(work, 'never.pdf'), '--credential', pades, '--level', 'B-T']);
    expect(bt.status).toBe(4);
    expect(bt.stderr).toContain('level B-T needs a timestamp authority');
    const certified = join(work, 'certified.pdf');
    const ok = await cli(['sign', 'pdf', join(work, 'in.pdf'), '-o', certified, '--credential', pades, '--certify', '2', '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    const report = parseJson<{ signatures: { certifies: number | null }[] }>(await cli(['verify', certified, '--json']));
    expect(report.signatures.map((x) => x.certifies)).toEqual([2]);
  });

  it('on a terminal, a progress line shows while it waits, then is erased', async () => {
    const tty = await runOnTty(['sign', 'hash', TX_HASH, '--credential', evm], { home, answer: '', env });
    expect(tty.status).toBe(0);
    expect(tty.screen).toMatch(/Signing the hash: waiting for req_\S+ \(0 s\)\r\u001b\[2K/);
    expect(tty.screen).toMatch(/\u001b\[2Kr: 0x[0-9a-f]{64}\r?\n/);
  });

  it('the service logs one line per request at info level: id, kind, credential, status, time', () => {
    expect(service.output()).toMatch(new RegExp(`req_\\S+ pades credential=${pades} DONE in \\d+ ms`));
    expect(service.output()).toMatch(new RegExp(`req_\\S+ blockchain credential=${evm} DONE in \\d+ ms`));
  });
});

describe('a request that ends ERROR', () => {
  const tmp = makeTmpHome();
  let service: ServiceProcess;
  let tsa: Server;
  afterAll(async () => {
    await service?.stop();
    tsa?.close();
    tmp.cleanup();
  });

  it('is exit 5, naming the request and its error record; no file is written', async () => {
    const creds = initEmbeddedWithWrapper(tmp.home);
    // A timestamp authority that hangs up at once: the PAdES request ends ERROR.
    tsa = createServer((s) => s.destroy());
    await new Promise<void>((r) => tsa.listen(0, '127.0.0.1', r));
    service = await startServiceProcess({ home: tmp.home, args: ['--tsa-url', `http://127.0.0.1:${(tsa.address() as { port: number }).port}/`] });
    const env = { LOCALSIGN_KEY: creds.key, LOCALSIGN_SECRET: creds.secret };
    const list = parseJson<{ credentials: { type: string; credential_key: string }[] }>(await runCliAsync(['credentials', '--json'], { home: tmp.home, env }));
    const pades = list.credentials.find((c) => c.type === 'pades')!.credential_key;
    const input = join(tmp.home, 'in.pdf');
    writeFileSync(input, await smallPdf());
    const r = await runCliAsync(['sign', 'pdf', input, '-o', join(tmp.home, 'out.pdf'), '--credential', pades], { home: tmp.home, env });
    const line = expectOneLineFailure(r, 5);
    expect(line).toMatch(/^signing failed: timestamp authority 127\.0\.0\.1:\d+ .+ \((req_\S+), err_\S+; details: `localsign report \1`\)$/);
    expect(existsSync(join(tmp.home, 'out.pdf'))).toBe(false);
  });
});

