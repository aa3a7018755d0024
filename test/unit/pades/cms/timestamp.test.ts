import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../../../src/domain/errors';
import { buildTimestampRequest, parseTimestampResponse } from '../../../../src/pades/cms/timestamp';
import { startLocalTsa, type LocalTsa } from '../../../helpers/local-tsa';
import { tempDir } from '../../../helpers/temp-dir';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const SIGNATURE = new Uint8Array(Buffer.from('a pretend signature value '.repeat(4)));
const IMPRINT = new Uint8Array(createHash('sha256').update(SIGNATURE).digest());
const NONCE = 0x1234_5678_9abc_def0n;

let tsa: LocalTsa;
let dir: string;
beforeAll(async () => {
  tsa = await startLocalTsa();
  dir = tempDir('localsign-ts-');
});
afterAll(async () => tsa?.close());

describe('buildTimestampRequest', () => {
  it('encodes TimeStampReq v1 with a SHA-256 imprint, the nonce and certReq TRUE', () => {
    const req = buildTimestampRequest(SIGNATURE, NONCE);
    // SEQUENCE { version 1, messageImprint { sha256 NULL, imprint }, nonce, certReq TRUE }
    expect(hex(req)).toBe(`30430201013031300d060960864801650304020105000420${hex(IMPRINT)}0208123456789abcdef00101ff`);
    expect(hex(buildTimestampRequest(SIGNATURE, 0x80n)).endsWith('0202008001' + '01ff')).toBe(true);
    writeFileSync(join(dir, 'req.der'), req);
    const text = execFileSync('openssl', ['ts', '-query', '-in', join(dir, 'req.der'), '-text'], { encoding: 'utf8', stdio: 'pipe' });
    expect(text).toContain('Hash Algorithm: sha256');
    expect(text).toContain('Nonce: 0x123456789ABCDEF0');
    expect(text).toContain('Certificate required: yes');
    expect(text).toContain('Policy OID: unspecified');
  });
});

describe('parseTimestampResponse against the local TSA', () => {
  it('returns a token that openssl ts -verify accepts for the signature value', async () => {
    const resp = await tsa.reply(buildTimestampRequest(SIGNATURE, NONCE));
    const token = parseTimestampResponse(resp, { imprint: IMPRINT, nonce: NONCE });
    expect(token[0]).toBe(0x30);
    writeFileSync(join(dir, 'token.der'), token);
    writeFileSync(join(dir, 'sig.bin'), SIGNATURE);
    const r = spawnSync('openssl', ['ts', '-verify', '-data', join(dir, 'sig.bin'), '-in', join(dir, 'token.der'), '-token_in',
      '-CAfile', tsa.caCertPath], { encoding: 'utf8', stdio: 'pipe' });
    expect(`${r.stdout}${r.stderr}`).toContain('Verification: OK');
    const info = execFileSync('openssl', ['ts', '-reply', '-in', join(dir, 'token.der'), '-token_in', '-text'], { encoding: 'utf8', stdio: 'pipe' });
    expect(info).toContain('Nonce: 0x123456789ABCDEF0');
    expect(info).toContain('Policy OID: 1.3.6.1.4.1.57264.99.1');
  });

  it('rejects a reply for another nonce or another value', async () => {
    const resp = await tsa.reply(buildTimestampRequest(SIGNATURE, 7n));
    expect(() => parseTimestampResponse(resp, { imprint: IMPRINT, nonce: 8n }))
      .toThrow('timestamp token nonce 7 does not match the request nonce 8');
    const other = new Uint8Array(32).fill(1);
    expect(() => parseTimestampResponse(resp, { imprint: other, nonce: 7n }))
      .toThrow(`timestamp token covers another value (imprint ${hex(IMPRINT)}, expected ${hex(other)})`);
  });

  it('reports a refusal with its status, text and failure bits', async () => {
    writeFileSync(join(dir, 'data.bin'), SIGNATURE);
    execFileSync('openssl', ['ts', '-query', '-data', join(dir, 'data.bin'), '-sha1', '-cert', '-out', join(dir, 'sha1.tsq')], { stdio: 'pipe' });
    const resp = await tsa.reply(new Uint8Array(execFileSync('cat', [join(dir, 'sha1.tsq')])));
    let error: unknown;
    try {
      parseTimestampResponse(resp, { imprint: IMPRINT, nonce: NONCE });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as Error).message).toBe(
      'timestamp authority refused the request: status rejection: Message digest algorithm is not supported. (failInfo: badAlg)');
  });

  it('refuses bytes that are not a TimeStampResp', () => {
    expect(() => parseTimestampResponse(new TextEncoder().encode('<html>'), { imprint: IMPRINT, nonce: NONCE }))
      .toThrow(/^timestamp authority reply is not a DER TimeStampResp/);
  });
});
