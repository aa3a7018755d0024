import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishPades } from '../../../src/pades/sign/finish';
import { preparePades } from '../../../src/pades/sign/prepare';
import { verifyPades } from '../../../src/pades/sign/verify';
import { ecdsaRawToDer } from '../../../src/pades/cms/cms';
import { verifyCmsSignature } from '../../../src/pades/cms/cms-check';
import { HttpClient } from '../../../src/net/http-client';
import { fetchTimestampToken } from '../../../src/signing/online/tsa-client';
import { tempDir } from '../../helpers/temp-dir';

const http = new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null });
import { startLocalTsa, type LocalTsa } from '../../helpers/local-tsa';
import { createTestPki, signDigest, type TestPki } from '../../helpers/test-pki';
import { makePdf, pdfsig, pdfsigSummary } from '../../unit/pades/_pdf-fixtures';

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.error) throw r.error;
  return `${r.stdout}${r.stderr}`;
}

let tsa: LocalTsa;
let rsa: TestPki;
let ec: TestPki;
beforeAll(async () => {
  [tsa, rsa, ec] = await Promise.all([startLocalTsa(), createTestPki({ algorithm: 'rsa' }), createTestPki({ algorithm: 'p256', intermediate: true })]);
});
afterAll(async () => tsa?.close());

describe('PAdES B-T: a PDF signature with an RFC 3161 signature time-stamp', () => {
  for (const algorithm of ['rsa', 'p256'] as const) {
    it(`${algorithm}: the token fits the reserved /Contents; pdfsig, openssl cms and openssl ts accept it`, async () => {
      const pki = algorithm === 'rsa' ? rsa : ec;
      const input = await makePdf({ pages: 1 });
      const prepared = await preparePades({ pdf: input, certificateChain: pki.chain, signingTime: new Date('2026-11-22T10:00:00Z'), reserveTimestamp: true });
      const raw = signDigest(pki.signerKeyPem, algorithm, prepared.digest);
      const signatureValue = algorithm === 'rsa' ? raw : ecdsaRawToDer(raw);
      const token = await fetchTimestampToken(http, tsa.url, signatureValue);
      const signed = finishPades(prepared, signatureValue, { timestampToken: token });

      expect(pdfsigSummary(pdfsig(signed))).toEqual({ valid: 1, total: 1, totalDocumentSigned: 1 });
      const { cms, byteRange } = verifyPades(signed);
      const dir = tempDir('localsign-pades-bt-');
      const covered = Buffer.concat([signed.subarray(0, byteRange[1]), signed.subarray(byteRange[2], byteRange[2] + byteRange[3])]);
      writeFileSync(join(dir, 'covered.bin'), covered);
      writeFileSync(join(dir, 'cms.der'), cms);
      writeFileSync(join(dir, 'sig.bin'), signatureValue);
      writeFileSync(join(dir, 'token.der'), token);
      expect(run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'cms.der', '-content', 'covered.bin',
        '-CAfile', pki.caCertPath, '-purpose', 'any', '-out', '/dev/null'], dir)).toContain('CMS Verification successful');
      expect(run('openssl', ['ts', '-verify', '-data', 'sig.bin', '-in', 'token.der', '-token_in', '-CAfile', tsa.caCertPath], dir))
        .toContain('Verification: OK');
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', covered));
      expect(Buffer.from(verifyCmsSignature(cms, digest).timestampToken!).equals(Buffer.from(token))).toBe(true);
    });
  }
});
