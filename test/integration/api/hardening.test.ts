import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, expectRawError, postJson, rawRequest, smallPdf, socketRequest, type Call, type RawResponse } from '../../helpers/api-fixtures';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, initEmbeddedWithWrapper, serveUntilExit, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 10 "Hardening": what a probe of the running service found, one service for all of it.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: Call;
let wrapper: { key: string; secret: string };

beforeAll(async () => {
  tmp = makeTmpHome('localsign-hardening-');
  const creds = initEmbeddedWithWrapper(tmp.home);
  // Small timeouts so slow clients are cut within the test's time (defaults 10 s and 30 s).
  svc = await startServiceProcess({ home: tmp.home, args: ['--header-timeout', '2', '--body-timeout', '2'] });
  call = authed(svc.url, creds);
  wrapper = creds;
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = () => ({ home: tmp.home, reader: call });
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('console and log injection', () => {
  it('an ESC or CR/LF in the path reaches the console, service.log and errors.log escaped', async () => {
    const path = '/%1B[31mred%0D%0A1970-01-01T00:00:00.000Z%20INFO%20forged%E2%80%AE';
    const res = await rawRequest(svc.url, { path });
    // The caller's message is the first line, escaped too (GET /v1/errors shows it, clients print it).
    const id = await expectRawError(res, 404, 'no route GET /\\x1b[31mred\\x0d', where());
    await new Promise((r) => setTimeout(r, 100));
    const escaped = 'GET /\\x1b[31mred\\x0d\\x0a1970-01-01T00:00:00.000Z INFO forged\\u{202e}';
    const texts = {
      console: svc.output(),
      'service.log': readFileSync(join(tmp.home, 'service.log'), 'utf8'),
      'errors.log': readFileSync(join(tmp.home, 'errors.log'), 'utf8'),
      'errors.jsonl': readFileSync(join(tmp.home, 'errors.jsonl'), 'utf8'),
    };
    for (const [name, text] of Object.entries(texts)) {
      expect(RAW_CONTROL.test(text), `${name} has a raw control character`).toBe(false);
      expect(text.split('\n').filter((l) => l.startsWith('1970-01-01')), `${name} has a forged line`).toEqual([]);
    }
    expect(texts.console).toContain(`${escaped} -> 404`);
    expect(texts['service.log']).toContain(`ERROR ${escaped} -> 404: no route GET /\\x1b[31mred\\x0d (${id})`);
    expect(texts['errors.log']).toContain(`${id} [routing] status=404 request=- app=- no route GET /\\x1b[31mred\\x0d\n`);
    expect(texts['errors.log']).toContain(`LocalsignError: no route ${escaped}`);
  });
});

describe('spoofed text in signatures', () => {
  it('a bidi override or a control character in signer_name, reason, location or a variable is 422 naming the field', async () => {
    const pdf = (await smallPdf()).toString('base64');
    const [credential] = (await credentialKeys(call)).pades;
    const cases: [Record<string, unknown>, string][] = [
      [{ signer_name: 'Alice \u202eecilA' }, 'signer_name must not contain control or bidirectional control characters; found a bidirectional control U+202E at position 6'],
      [{ reason: 'approved\u2066 not' }, 'reason must not contain control or bidirectional control characters; found a bidirectional control U+2066 at position 8'],
      [{ location: 'Berlin\r\nParis' }, 'location must not contain control or bidirectional control characters; found a control character U+000D at position 6'],
      [{ variables: { note: 'x\u0085y' } }, 'variables.note must not contain control or bidirectional control characters; found a control character U+0085 at position 1'],
    ];
    for (const [fields, message] of cases) {
      const res = await postJson(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: credential, ...fields });
      await expectError(res, 422, message, where());
    }
  });

  it('a right-to-left name without override controls is signed', async () => {
    const pdf = (await smallPdf()).toString('base64');
    const [credential] = (await credentialKeys(call)).pades;
    const res = await postJson(call, '/v1/pades/sign', { pdf_base64: pdf, credential_key: credential, signer_name: 'محمد عبد الله', reason: 'אישור', location: 'القاهرة' });
    expect(res.status).toBe(202);
    const { request_id } = (await res.json()) as { request_id: string };
    expect(await waitForResult(call, request_id)).toMatchObject({ status: 'DONE' });
  });
});

describe('answers from the HTTP parser carry the error body', () => {
  it('a HTTP/1.1 request without Host is 403 from the Host check, with its record', async () => {
    const res = await socketRequest(svc.port, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n');
    await expectRawError(res, 403, 'this Host is not served; only loopback names and --allow-host names are', where());
  });

  it('a malformed request is 400 with {error, error_id} and its record', async () => {
    const bad = await socketRequest(svc.port, 'GET /health HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n');
    expect(bad.headers.connection).toBe('close');
    await expectRawError(bad, 400, 'malformed HTTP request (HPE_INVALID_HEADER_TOKEN)', where());
    const method = await socketRequest(svc.port, 'G\u0001T /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await expectRawError(method, 400, /^malformed HTTP request \(HPE_[A-Z_]+\)$/, where());
  });

  it('a header section over 16 KiB is 431 with {error, error_id} and its record', async () => {
    const res = await socketRequest(svc.port, `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    await expectRawError(res, 431, 'request header section is larger than 16384 bytes', where());
  });
});

/**
 * A client that writes `head` and then `trickle` one byte every `everyMs` (stopping after
 * `stopAfter` bytes, if given), and reads whatever answer comes. Resolves when the service closes
 * the connection, with the answer and how many bytes it had sent by then.
 */
function slowClient(port: number, head: string, trickle: string, everyMs: number, stopAfter = Infinity): Promise<RawResponse & { sent: number }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    sock.on('connect', () => {
      sock.write(head);
      timer = setInterval(() => {
        if (sent < Math.min(trickle.length, stopAfter) && sock.writable) sock.write(trickle[sent++]!);
      }, everyMs);
    });
    sock.setEncoding('utf8');
    sock.on('data', (d) => (out += d));
    sock.on('error', (e) => (out ? undefined : reject(e)));
    sock.on('close', () => {
      clearInterval(timer);
      const [headText = '', text = ''] = out.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text, json: () => JSON.parse(text) as Record<string, unknown>, sent });
    });
  });
}

describe('slow clients', () => {
  it('headers or a body trickled do not hold up others, and are cut with 408 and the error body', async () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const body = JSON.stringify({ tx_hash: hash, credential_key: 'x', chain_id: 1 });
    const auth = `X-Wrapper-Key: ${wrapper.key}\r\nX-Wrapper-Secret: ${wrapper.secret}\r\nContent-Type: application/json\r\n`;
    const post = `POST /v1/blockchain/sign HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Length: ${body.length}\r\n\r\n`;
    const slow = [
      // The header section, one byte every 100 ms: never complete within 2 s.
      ...Array.from({ length: 3 }, () => slowClient(svc.port, '', `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\n`, 100)),
      // A body that stops after 5 bytes: silent for 2 s.
      ...Array.from({ length: 3 }, () => slowClient(svc.port, post, body, 50, 5)),
    ];
    // Meanwhile, others are answered as usual.
    const started = Date.now();
    let answered = 0;
    while (Date.now() - started < 1500) {
      const res = await call('/health');
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      answered += 1;
    }
    expect(answered).toBeGreaterThan(5);
    const [h1, h2, h3, b1, b2, b3] = await Promise.all(slow);
    for (const r of [h1!, h2!, h3!]) {
      expect(r.text).toContain('error_id');
      expect(r.sent).toBeLessThan(60); // cut long before the header section was complete
      await expectRawError(r, 408, 'the request did not arrive in time: its headers within 2 s (serve --header-timeout), all of it within 300 s', where());
    }
    for (const r of [b1!, b2!, b3!]) {
      expect(r.text).toContain('error_id');
      expect(r.sent).toBe(5);
      expect(r.headers.connection).toBe('close');
      await expectRawError(r, 408, 'the request body stopped arriving: no data for 2 s (serve --body-timeout)', where());
    }
  });
});

describe('aborted uploads', () => {
  it('a client that goes away mid-body is an info line, not a 500 error record', async () => {
    const errorsNow = () => (existsSync(join(tmp.home, 'errors.jsonl')) ? readFileSync(join(tmp.home, 'errors.jsonl'), 'utf8') : '');
    const before = errorsNow();
    const head = `POST /v1/blockchain/sign HTTP/1.1\r\nHost: localhost\r\nX-Wrapper-Key: ${wrapper.key}\r\nX-Wrapper-Secret: ${wrapper.secret}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    await new Promise<void>((resolve) => {
      const sock = connect(svc.port, '127.0.0.1', () => {
        sock.write(head + '{'.padEnd(100, ' '));
        setTimeout(() => sock.destroy(), 200);
      });
      sock.on('close', () => resolve());
      sock.on('error', () => undefined);
    });
    const deadline = Date.now() + 5000;
    const line = 'INFO POST /v1/blockchain/sign: the client closed the connection during its upload (100 of 1000 bytes received)';
    while (!readFileSync(join(tmp.home, 'service.log'), 'utf8').includes(line) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(join(tmp.home, 'service.log'), 'utf8')).toContain(line);
    expect(errorsNow()).toBe(before);
  });
});

describe('abuse: a rate limit per application key, and a flood of bad credentials', () => {
  const own = makeTmpHome('localsign-abuse-');
  let limited: ServiceProcess | undefined;
  let first: { key: string; secret: string };
  let second: { key: string; secret: string };
  afterAll(async () => {
    await limited?.stop();
    own.cleanup();
  });

  it('over --rate-limit a key gets 429 with Retry-After and the error body; another key is not affected', async () => {
    first = initEmbeddedWithWrapper(own.home);
    second = parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home: own.home }));
    // 1 request a second with a burst of 3: the 4th at once is over, whatever the machine's speed.
    limited = await startServiceProcess({ home: own.home, args: ['--rate-limit', '1', '--rate-burst', '3'] });
    const a = authed(limited.url, first);
    const b = authed(limited.url, second);
    const sign = (c: Call) => postJson(c, '/v1/blockchain/sign', { tx_hash: `0x${'cd'.repeat(32)}`, credential_key: 'not-a-credential', chain_id: 1 });
    // Counted, then validated (422): the burst of 3 goes through, the next one at once is refused
    // (a few more may pass on a machine so slow that a second went by meanwhile).
    let passed = 0;
    let over = await sign(a);
    while (over.status === 422 && passed < 20) {
      passed += 1;
      over = await sign(a);
    }
    expect(passed).toBeGreaterThanOrEqual(3);
    expect(over.headers.get('retry-after')).toBe('1');
    await expectError(over, 429, 'this application key is over its rate limit (serve --rate-limit); retry after 1 s', { home: own.home, reader: a });
    // Polls and reads are not limited; another key has its own bucket.
    expect((await a('/v1/results')).status).toBe(200);
    expect((await sign(b)).status).toBe(422);
    // Unauthenticated callers meet 401 first (they have no bucket to fill).
    const stranger = await rawRequest(limited.url, { method: 'POST', path: '/v1/blockchain/sign', headers: { Host: 'localhost' }, body: '{}' });
    expect(stranger.status).toBe(401);
  });

  it('a flood of bad credentials is coalesced: a hundred full records and one summary; real records stay', async () => {
    // The second key still has tokens (the first spent its burst above).
    const app = authed(limited!.url, second);
    const real = await expectError(await postJson(app, '/v1/blockchain/sign', { tx_hash: '0x12', credential_key: 'k', chain_id: 1 }), 422, /^tx_hash must be/, { home: own.home, reader: app });
    const before = readFileSync(join(own.home, 'errors.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    const stranger = authed(limited!.url, { key: first.key, secret: 'wsec_wrong' });
    const ids = new Set<string>();
    const N = 300;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          next += 1;
          const res = await stranger('/v1/results');
          expect(res.status).toBe(401);
          ids.add(((await res.json()) as { error_id: string }).error_id);
        }
      }),
    );
    expect(ids.size).toBe(N); // each caller still gets its own error_id
    expect(await limited!.stop()).toBe(0); // a clean stop writes the open summary
    const lines = readFileSync(join(own.home, 'errors.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { error_id: string; wrapper_key: string | null; status: number; context: { coalesced?: { count: number; error_ids: string[] } } });
    const flood = lines.slice(before);
    const full = flood.filter((l) => l.wrapper_key === null && !l.context.coalesced);
    const summaries = flood.filter((l) => l.context.coalesced);
    // The unauthenticated budget (a burst of 100) less the one 401 of the test above, plus a little refill.
    expect(full.length).toBeGreaterThanOrEqual(99);
    expect(full.length).toBeLessThan(105);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ wrapper_key: null, status: 401 });
    expect(summaries[0]!.context.coalesced!.count).toBe(N - full.length);
    expect(summaries[0]!.context.coalesced!.error_ids.every((id) => ids.has(id))).toBe(true);
    expect(lines.map((l) => l.error_id)).toContain(real);
    const log = readFileSync(join(own.home, 'service.log'), 'utf8');
    expect(log.split('\n').filter((l) => l.includes('GET /v1/results -> 401')).length).toBe(full.length);
    expect(log).toContain(`${N - full.length} more failure(s) like "missing or invalid application credentials (X-Wrapper-Key, X-Wrapper-Secret)" (auth, status 401)`);
  });
});

describe('binding beyond loopback', () => {
  const own = makeTmpHome('localsign-bind-');
  let creds: { key: string; secret: string };
  let remote: ServiceProcess | undefined;
  beforeAll(() => {
    creds = initEmbeddedWithWrapper(own.home);
  });
  afterAll(async () => {
    await remote?.stop();
    own.cleanup();
  });

  it('--host 0.0.0.0 without --allow-remote refuses to start, naming the flag', async () => {
    const run = await serveUntilExit({ home: own.home, args: ['--host', '0.0.0.0'] });
    expect(run.code).toBe(1);
    expect(run.output.trim()).toBe('--host 0.0.0.0 is not a loopback address; to listen beyond loopback on purpose add --allow-remote (and --allow-host with the name remote callers use)');
  });

  it('with --allow-remote it warns, and a peer on another address must use an --allow-host name', async () => {
    remote = await startServiceProcess({ home: own.home, args: ['--host', '0.0.0.0', '--allow-remote', '--allow-host', 'signer.example'] });
    expect(remote.output()).toContain(`listening beyond loopback on http://0.0.0.0:${remote.port} (--allow-remote): other machines can reach the API over plain HTTP; they are served only with a Host named by --allow-host (signer.example)`);
    const local = await rawRequest(`http://127.0.0.1:${remote.port}`, { path: '/health', headers: { Host: 'localhost' } });
    expect(local.status).toBe(200);
    // This machine's own non-loopback address: the kernel makes it the source too, so the
    // service sees a peer that is not loopback, as a remote client would be.
    const address = Object.values(networkInterfaces()).flat().find((a) => a && !a.internal && a.family === 'IPv4')?.address;
    if (!address) {
      console.warn('no non-loopback IPv4 address on this machine: the remote-peer half of this test is covered by test/unit/config/loopback.test.ts only');
      return;
    }
    const spoofed = await rawRequest(`http://${address}:${remote.port}`, { path: '/health', headers: { Host: 'localhost' } });
    await expectRawError(spoofed, 403, 'requests from another machine must name an --allow-host host in Host', { home: own.home, reader: authed(`http://127.0.0.1:${remote.port}`, creds) });
    const named = await rawRequest(`http://${address}:${remote.port}`, { path: '/health', headers: { Host: `signer.example:${remote.port}` } });
    expect(named.status).toBe(200);
  });
});
