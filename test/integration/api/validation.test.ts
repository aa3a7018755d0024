import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialKeys, expectError, expectRawError, HASH_A, postJson, rawRequest, REQUEST_ID, smallPdf, type Call } from '../../helpers/api-fixtures';
import { authed, initEmbeddedWithWrapper, startServiceProcess, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * CONTRACT "HTTP: general" and the sign rows of the endpoint table: every refusal is a 422 whose
 * message names the field; `null` for an optional field is absent; bodies over --max-body are 413.
 */
let tmp: ReturnType<typeof makeTmpHome>;
let svc: ServiceProcess;
let call: Call;
let creds: { key: string; secret: string };
let evm: string;
let pades: string;
let standard: string;
let approval: string;
let pdf: string;

beforeAll(async () => {
  tmp = makeTmpHome('localsign-api-validation-');
  creds = initEmbeddedWithWrapper(tmp.home);
  svc = await startServiceProcess({ home: tmp.home });
  call = authed(svc.url, creds);
  const keys = await credentialKeys(call);
  evm = keys.evm[0]!;
  pades = keys.pades[0]!;
  const designs = ((await (await call('/v1/designs')).json()) as { designs: { design_key: string; name: string }[] }).designs;
  standard = designs.find((d) => d.name === 'Standard signature stamp')!.design_key;
  approval = designs.find((d) => d.name === 'Approval stamp')!.design_key;
  pdf = (await smallPdf()).toString('base64');
});

afterAll(async () => {
  await svc?.stop();
  tmp?.cleanup();
});

const where = () => ({ home: tmp.home, reader: call });
const expect422 = async (path: string, body: unknown, message: string | RegExp, raw = false) =>
  expectError(await postJson(call, path, body, raw), 422, message, where());
const expect202 = async (path: string, body: unknown) => {
  const res = await postJson(call, path, body);
  const json = (await res.json()) as Record<string, unknown>;
  expect([JSON.stringify(body).slice(0, 120), res.status]).toEqual([JSON.stringify(body).slice(0, 120), 202]);
  expect(Object.keys(json).sort()).toEqual(['request_id', 'status']);
  expect(json.status).toBe('PENDING');
  expect(json.request_id).toMatch(REQUEST_ID);
  return json.request_id as string;
};

const SHAPE = '64 hex digits after an optional 0x prefix';
const CHAIN = 'chain_id must be an integer from 1 to 4503599627370476 (or null)';

describe('bodies: JSON objects only (both sign routes)', () => {
  for (const path of ['/v1/blockchain/sign', '/v1/pades/sign']) {
    it(`${path}: invalid JSON, non-objects, unknown fields`, async () => {
      for (const raw of ['{', '', '{"tx_hash":', "{'a':1}", '{"a":1}}']) await expect422(path, raw, 'request body must be valid JSON', true);
      for (const raw of ['[]', '[{}]', '"x"', 'null', '1', 'true']) await expect422(path, raw, 'request body must be a JSON object', true);
      const allowed = path === '/v1/pades/sign' ? 'pdf_base64, credential_key, design_key, variables, reason, location, signer_name, level, certify, chip_pin' : 'tx_hash, credential_key, chain_id, chip_pin';
      await expect422(path, { surprise: 1 }, `unknown field: surprise; allowed: ${allowed}`);
      await expect422(path, { Tx_Hash: HASH_A, credential_key: evm, __proto__x: 1 }, `unknown fields: Tx_Hash, __proto__x; allowed: ${allowed}`);
    });
  }
});

describe('POST /v1/blockchain/sign', () => {
  it('accepts tx_hash with 0x, 0X, no prefix, in upper, lower and mixed case', async () => {
    const digits = '0123456789abcdefABCDEF'.repeat(3).slice(0, 64);
    for (const tx of ['0x' + digits, '0X' + digits, digits, '0x' + digits.toLowerCase(), digits.toUpperCase()]) {
      await expect202('/v1/blockchain/sign', { tx_hash: tx, credential_key: evm });
    }
  });

  it('refuses other tx_hash shapes, naming the field', async () => {
    const d = 'ab'.repeat(32);
    const cases: [unknown, string][] = [
      ['0x' + d.slice(1), `tx_hash must be ${SHAPE}, got 63 hex digits`],
      ['0x' + d + 'a', `tx_hash must be ${SHAPE}, got 65 hex digits`],
      [d.slice(1), `tx_hash must be ${SHAPE}, got 63 hex digits`],
      [' 0x' + d, `tx_hash must be ${SHAPE}, got U+0020 at index 0`],
      ['0x' + d + '\n', `tx_hash must be ${SHAPE}, got U+000A at index 66`],
      ['0x' + d.slice(0, 10) + ' ' + d.slice(11), `tx_hash must be ${SHAPE}, got U+0020 at index 12`],
      ['0x' + d.slice(0, 63) + 'g', `tx_hash must be ${SHAPE}, got "g" at index 65`],
      ['xx' + d, `tx_hash must be ${SHAPE}, got "x" at index 0`],
      ['0x', `tx_hash must be ${SHAPE}, got 0 hex digits`],
      ['', `tx_hash must be ${SHAPE}, got an empty string`],
      [12345, `tx_hash must be a string of ${SHAPE}, got number`],
      [null, `tx_hash must be a string of ${SHAPE}, got null`],
      [['0x' + d], `tx_hash must be a string of ${SHAPE}, got an array`],
    ];
    for (const [tx, message] of cases) await expect422('/v1/blockchain/sign', { tx_hash: tx, credential_key: evm }, message);
    await expect422('/v1/blockchain/sign', { credential_key: evm }, `tx_hash must be a string of ${SHAPE}, got undefined`);
  });

  it('chain_id: 1 and 4503599627370476 and null are accepted; others are 422', async () => {
    for (const chain_id of [1, 4503599627370476, null]) await expect202('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: evm, chain_id });
    const cases: [string, string][] = [
      ['0', `${CHAIN}, got 0`],
      ['-1', `${CHAIN}, got -1`],
      ['1.5', `${CHAIN}, got 1.5`],
      ['"1"', `${CHAIN}, got string`],
      ['4503599627370477', `${CHAIN}, got 4503599627370477`],
      ['1e300', `${CHAIN}, got 1e+300`],
      ['true', `${CHAIN}, got boolean`],
      ['{}', `${CHAIN}, got an object`],
    ];
    for (const [raw, message] of cases) {
      await expect422('/v1/blockchain/sign', `{"tx_hash":"${HASH_A}","credential_key":"${evm}","chain_id":${raw}}`, message, true);
    }
  });

  it('credential_key: missing, wrong type, unknown, or a PAdES credential', async () => {
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A }, 'credential_key is required');
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: null }, 'credential_key is required');
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: 7 }, 'credential_key must be a string, got number');
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: '' }, 'credential_key must not be empty');
    const unknown = '00000000-0000-4000-8000-000000000000';
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: unknown }, `credential_key ${unknown} is not a known credential (see GET /v1/credentials)`);
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: pades }, `credential_key ${pades} is a pades credential; blockchain signing needs an evm one`);
  });
});

describe('POST /v1/pades/sign', () => {
  it('null for every optional field means absent', async () => {
    await expect202('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, design_key: null, variables: null, reason: null, location: null, signer_name: null, level: null, certify: null });
  });

  it('required fields and field types', async () => {
    await expect422('/v1/pades/sign', { credential_key: pades }, 'pdf_base64 is required');
    await expect422('/v1/pades/sign', { credential_key: pades, pdf_base64: null }, 'pdf_base64 is required');
    await expect422('/v1/pades/sign', { pdf_base64: pdf }, 'credential_key is required');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: [pades] }, 'credential_key must be a string, got array');
    await expect422('/v1/pades/sign', { pdf_base64: 42, credential_key: pades }, 'pdf_base64 must be a string of base64, got number');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, design_key: 5 }, 'design_key must be a string, got number');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, reason: 5 }, 'reason must be a string, got number');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, location: false }, 'location must be a string, got boolean');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, signer_name: {} }, 'signer_name must be a string, got object');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, variables: ['a'] }, 'variables must be an object of strings, got array');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, variables: 'a=b' }, 'variables must be an object of strings, got string');
  });

  it('credential and design: unknown keys, an EVM credential, an empty design_key', async () => {
    const unknown = '11111111-1111-4111-8111-111111111111';
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: unknown }, `credential_key ${unknown} is not a known credential (see GET /v1/credentials)`);
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: evm }, `credential_key ${evm} is an evm credential; PAdES signing needs a pades one`);
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, design_key: unknown }, `design_key ${unknown} is not a known design (see GET /v1/designs)`);
    // An empty design_key is not "absent": it names no design, so it must not drop the stamp silently.
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, design_key: '' }, 'design_key must not be empty');
  });

  it('design variables: unknown names, missing required ones and non-string values are 422 naming them', async () => {
    const base = { pdf_base64: pdf, credential_key: pades };
    await expect422('/v1/pades/sign', { ...base, variables: { nope: 'x' } }, 'unknown variable for design "Standard signature stamp": nope; it takes: signer_name, reason, location, reference');
    await expect422('/v1/pades/sign', { ...base, design_key: approval, variables: { approval_id: 'A-1', colour: 'red', size: 'xl' } }, 'unknown variables for design "Approval stamp": colour, size; it takes: approval_id, signer_name');
    await expect422('/v1/pades/sign', { ...base, design_key: approval }, 'missing required variable for design "Approval stamp": approval_id');
    await expect422('/v1/pades/sign', { ...base, design_key: approval, variables: { signer_name: 'Ann' } }, 'missing required variable for design "Approval stamp": approval_id');
    await expect422('/v1/pades/sign', { ...base, design_key: approval, variables: { approval_id: 17 } }, 'variables.approval_id must be a string, got number');
    await expect422('/v1/pades/sign', { ...base, design_key: approval, variables: { approval_id: null } }, 'variables.approval_id must be a string, got null');
    await expect202('/v1/pades/sign', { ...base, design_key: approval, variables: { approval_id: 'A-1' }, signer_name: 'Ann' });
    await expect202('/v1/pades/sign', { ...base, design_key: standard, variables: { reference: 'case 7' } });
  });
});

describe('bounds on every request field (CONTRACT "HTTP: general")', () => {
  const x = (n: number) => 'x'.repeat(n);

  it('reason, location, signer_name and a variables value: 1,000 characters are signed, 1,001 are 422', async () => {
    const base = { pdf_base64: pdf, credential_key: pades };
    for (const name of ['reason', 'location', 'signer_name']) {
      await expect422('/v1/pades/sign', { ...base, [name]: x(1001) }, `${name} must be at most 1000 characters, got 1001`);
    }
    await expect422('/v1/pades/sign', { ...base, variables: { reference: x(1001) } }, 'variables.reference must be at most 1000 characters, got 1001');
    const id = await expect202('/v1/pades/sign', { ...base, reason: x(1000), location: x(1000), signer_name: x(1000), variables: { reference: x(1000) } });
    expect(await waitForResult(call, id, 60_000)).toMatchObject({ request_id: id, status: 'DONE', pdf_base64: expect.stringMatching(/^JVBERi0/) });
  });

  it('design_key and credential_key: 1,000 characters pass the bound (then are unknown), 1,001 are 422', async () => {
    const base = { pdf_base64: pdf, credential_key: pades };
    await expect422('/v1/pades/sign', { ...base, design_key: x(1001) }, 'design_key must be at most 1000 characters, got 1001');
    await expect422('/v1/pades/sign', { ...base, design_key: x(1000) }, `design_key ${x(64)} is not a known design (see GET /v1/designs)`);
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: x(1001) }, 'credential_key must be at most 1000 characters, got 1001');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: x(1000) }, `credential_key ${x(64)} is not a known credential (see GET /v1/credentials)`);
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: x(1001) }, 'credential_key must be at most 1000 characters, got 1001');
    await expect422('/v1/blockchain/sign', { tx_hash: HASH_A, credential_key: x(1000) }, `credential_key ${x(64)} is not a known credential (see GET /v1/credentials)`);
  });

  it('variables: at most 64 entries and names at most 64 characters', async () => {
    const base = { pdf_base64: pdf, credential_key: pades };
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, 'x']));
    await expect422('/v1/pades/sign', { ...base, variables: many(65) }, 'variables must have at most 64 entries, got 65');
    // 64 pass the bound; the design then names the first ten it does not take.
    await expect422('/v1/pades/sign', { ...base, variables: many(64) }, 'unknown variables for design "Standard signature stamp": v0, v1, v2, v3, v4, v5, v6, v7, v8, v9 (and 54 more); it takes: signer_name, reason, location, reference');
    await expect422('/v1/pades/sign', { ...base, variables: { [x(65)]: 'x' } }, `variables names must be at most 64 characters, got 65 ("${x(40)}…")`);
    await expect422('/v1/pades/sign', { ...base, variables: { [x(64)]: 'x' } }, `unknown variable for design "Standard signature stamp": ${x(40)}; it takes: signer_name, reason, location, reference`);
  });

  it('a bound is checked before the PDF is decoded and before the design is looked up', async () => {
    // The size that took the event loop for seconds in the stamp layout is refused at the door.
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, variables: { reference: x(12_000_000) } }, 'variables.reference must be at most 1000 characters, got 12000000');
    await expect422('/v1/pades/sign', { pdf_base64: 'not a PDF', credential_key: pades, reason: x(1001) }, 'reason must be at most 1000 characters, got 1001');
    await expect422('/v1/pades/sign', { pdf_base64: pdf, credential_key: pades, design_key: 'no-such-design', variables: { note: x(1001) } }, 'variables.note must be at most 1000 characters, got 1001');
  });
});

describe('body limit: serve --max-body 1000', () => {
  const LIMIT = 'request body is larger than the limit of 1000 bytes (serve --max-body)';

  beforeAll(async () => {
    // One service per journal: stop the first, restart on the same config dir with the limit.
    expect(await svc.stop()).toBe(0);
    svc = await startServiceProcess({ home: tmp.home, args: ['--max-body', '1000'] });
    call = authed(svc.url, creds);
  });

  /** A blockchain body padded with spaces to exactly `size` bytes (whitespace is valid JSON). */
  const padded = (size: number) => {
    const json = JSON.stringify({ tx_hash: HASH_A, credential_key: evm });
    return json.slice(0, -1) + ' '.repeat(size - json.length) + '}';
  };

  it('exactly 1000 bytes is accepted; 1001 bytes is 413 with or without Content-Length', async () => {
    const headers = { 'x-wrapper-key': creds.key, 'x-wrapper-secret': creds.secret, 'content-type': 'application/json' };
    const okBody = padded(1000);
    expect(Buffer.byteLength(okBody)).toBe(1000);
    const ok = await rawRequest(svc.url, { method: 'POST', path: '/v1/blockchain/sign', headers: { ...headers, 'content-length': '1000' }, body: okBody });
    expect(ok.status).toBe(202);
    const big = padded(1001);
    const declared = await rawRequest(svc.url, { method: 'POST', path: '/v1/blockchain/sign', headers: { ...headers, 'content-length': '1001' }, body: big });
    await expectRawError(declared, 413, LIMIT, where());
    // No Content-Length: the limit holds while the chunked body streams in.
    const chunked = await rawRequest(svc.url, { method: 'POST', path: '/v1/blockchain/sign', headers, chunks: [big.slice(0, 600), big.slice(600)] });
    await expectRawError(chunked, 413, LIMIT, where());
    const pdfBody = await rawRequest(svc.url, { method: 'POST', path: '/v1/pades/sign', headers, body: JSON.stringify({ pdf_base64: pdf, credential_key: pades }) });
    await expectRawError(pdfBody, 413, LIMIT, where());
  });

  it('env LOCALSIGN_MAX_BODY sets the same limit', async () => {
    expect(await svc.stop()).toBe(0);
    svc = await startServiceProcess({ home: tmp.home, env: { LOCALSIGN_MAX_BODY: '500' } });
    call = authed(svc.url, creds);
    const json = JSON.stringify({ tx_hash: HASH_A, credential_key: evm });
    expect((await postJson(call, '/v1/blockchain/sign', json.slice(0, -1) + ' '.repeat(500 - json.length) + '}', true)).status).toBe(202);
    const res = await postJson(call, '/v1/blockchain/sign', json.slice(0, -1) + ' '.repeat(501 - json.length) + '}', true);
    await expectError(res, 413, 'request body is larger than the limit of 500 bytes (serve --max-body)', where());
  });
});
