/**
 * The signature algorithms European signatures use (issue 28), on signatures openssl made: a PKI
 * per algorithm (openssl req/x509: Ed25519, Ed448, RSASSA-PSS with SHA-256 and MGF1-SHA-256, RSA
 * with SHA3-256, ECDSA P-384 with SHA3-384), a PDF prepared by the engine and its /ByteRange bytes
 * signed by `openssl cms -sign` where OpenSSL 3.0's CMS can (RSASSA-PSS, RSA with SHA-3), and where
 * it cannot (EdDSA: RFC 8419, and ECDSA with SHA-3 arrived in later OpenSSL) the message digest
 * made by `openssl dgst` and the signature value by `openssl pkeyutl -rawin` / `openssl dgst
 * -sign` over the signed attributes, which this test frames as RFC 5652 asks. Each is read, its
 * chain (certificates signed in the same algorithm) trusted, and its algorithms named with ETSI TS
 * 119 312's verdict; SHA-1 with RSA 1024 is too weak to trust.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ctx, oid, octets, readDerExact, seq, setOf, tlv, TAG, uint, children } from '../../../src/der/der';
import { OID } from '../../../src/der/oids';
import { validatePdf, type SignatureReport } from '../../../src/pades/validate/validate';
import { parseJson, runCliAsync } from '../../helpers/cli';
import { opensslVerify, placeholder, smallPdf, withCms, type Placeholder } from '../../helpers/external-cms';
import { createTestPki, PKI_OPENSSL_CONFIG, pemToDer } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

const run = promisify(execFile);
let dir: string;
let frame: Placeholder;

beforeAll(async () => {
  dir = tempDir('localsign-algorithms-');
  writeFileSync(join(dir, 'pki.cnf'), PKI_OPENSSL_CONFIG);
  // The engine's placeholder: its chain only sizes the room; the signature put there is openssl's.
  frame = await placeholder(await smallPdf(), await createTestPki({ algorithm: 'rsa' }));
  writeFileSync(join(dir, 'content.bin'), frame.signedBytes);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const openssl = async (...args: string[]): Promise<void> => void (await run('openssl', args, { cwd: dir }));

interface Pki {
  root: Uint8Array;
  rootPath: string;
  signer: Uint8Array;
  name: string;
}

/** A root and a signer of key `keygen`, each certificate signed with `sign` (openssl's digest and -sigopt flags). */
async function pki(name: string, keygen: string[], sign: string[]): Promise<Pki> {
  for (const k of ['root', 'ee']) await openssl('genpkey', ...keygen, '-out', `${name}-${k}.key`);
  await openssl('req', '-x509', '-new', '-key', `${name}-root.key`, '-subj', `/O=localsign test/CN=${name} root`, '-days', '30', '-config', 'pki.cnf', '-extensions', 'v3_ca', ...sign, '-out', `${name}-root.pem`);
  await openssl('req', '-new', '-key', `${name}-ee.key`, '-subj', `/O=localsign test/CN=${name} signer`, '-config', 'pki.cnf', '-out', `${name}-ee.csr`);
  await openssl('x509', '-req', '-in', `${name}-ee.csr`, '-CA', `${name}-root.pem`, '-CAkey', `${name}-root.key`, '-set_serial', '0x1c0ffee1', '-days', '30',
    '-extfile', 'pki.cnf', '-extensions', 'signer', ...sign, '-out', `${name}-ee.pem`);
  const der = (f: string) => pemToDer(readFileSync(join(dir, f), 'utf8'));
  return { root: der(`${name}-root.pem`), rootPath: join(dir, `${name}-root.pem`), signer: der(`${name}-ee.pem`), name };
}

/** `openssl cms -sign` over the /ByteRange bytes, detached, with `flags`. */
async function cmsByOpenssl(p: Pki, flags: string[]): Promise<Uint8Array> {
  await openssl('cms', '-sign', '-binary', '-in', 'content.bin', '-signer', `${p.name}-ee.pem`, '-inkey', `${p.name}-ee.key`, '-outform', 'DER', '-out', `${p.name}.p7s`, ...flags);
  return new Uint8Array(readFileSync(join(dir, `${p.name}.p7s`)));
}

/**
 * RFC 5652 §5 framed here, openssl's digest and signature inside: the message digest by
 * `openssl dgst <dgst>` of the /ByteRange bytes, the signature by `sign` over the DER signed
 * attributes (content-type, message-digest, ESS signing-certificate-v2).
 */
async function cmsFramed(p: Pki, o: { dgst: string[]; digestAlgorithm: Uint8Array; signatureAlgorithm: Uint8Array; sign: (input: string, out: string) => string[] }): Promise<Uint8Array> {
  const { stdout } = await run('openssl', ['dgst', ...o.dgst, '-binary', 'content.bin'], { cwd: dir, encoding: 'buffer' });
  const f = children(children(readDerExact(p.signer))[0]!);
  const [issuer, serial] = [f[3]!, f[1]!];
  const ess = seq(seq(seq(octets(new Uint8Array(createHash('sha256').update(p.signer).digest())), seq(seq(ctx(4, issuer.raw)), serial.raw))));
  const attrs = setOf(
    seq(oid(OID.contentType), setOf(oid(OID.data))),
    seq(oid(OID.messageDigest), setOf(octets(new Uint8Array(stdout)))),
    seq(oid(OID.signingCertificateV2), setOf(ess)),
  );
  writeFileSync(join(dir, `${p.name}-attrs.der`), attrs);
  await openssl(...o.sign(`${p.name}-attrs.der`, `${p.name}-sig.bin`));
  const signature = new Uint8Array(readFileSync(join(dir, `${p.name}-sig.bin`)));
  const signerInfo = seq(uint(1), seq(issuer.raw, serial.raw), o.digestAlgorithm, tlv(0xa0, readDerExact(attrs).content), o.signatureAlgorithm, octets(signature));
  return seq(oid(OID.signedData), ctx(0, seq(uint(1), setOf(o.digestAlgorithm), seq(oid(OID.data)), ctx(0, p.signer), tlv(TAG.SET, signerInfo))));
}

function judge(p: Pki, cms: Uint8Array): SignatureReport {
  const report = validatePdf(withCms(frame, cms), { trustAnchors: [p.root], now: new Date(), revocation: 'if-available' });
  expect(report.signatures).toHaveLength(1);
  return report.signatures[0]!;
}

describe('signature algorithms, signed by openssl', () => {
  it('Ed25519 (RFC 8419: SHA-512 digest), its certificates Ed25519 too', async () => {
    const p = await pki('ed25519', ['-algorithm', 'ED25519'], []);
    const cms = await cmsFramed(p, { dgst: ['-sha512'], digestAlgorithm: seq(oid(OID.sha512)), signatureAlgorithm: seq(oid(OID.ed25519)), sign: (i, out) => ['pkeyutl', '-sign', '-rawin', '-inkey', 'ed25519-ee.key', '-in', i, '-out', out] });
    const s = judge(p, cms);
    expect(s, s.problems.join('\n')).toMatchObject({ valid: true, digestValid: true, level: 'B-B', chain: { trusted: true } });
    expect(s.algorithms).toEqual({ digest: 'SHA-512', signature: 'Ed25519', key: 'Ed25519', acceptableUntil: 2029, warnings: ["Ed25519 is not in ETSI TS 119 312's table as EU DSS's default policy encodes it"] });
    // A byte of the signed range changed: the digest no longer holds.
    const tampered = withCms(frame, cms);
    tampered[frame.prepared.byteRange[1] - 40]! ^= 1;
    expect(validatePdf(tampered, { trustAnchors: [p.root], now: new Date(), revocation: 'if-available' }).signatures[0]!.digestValid).toBe(false);
  });

  it('Ed448 (RFC 8419: SHAKE256 with 512 bits, id-shake256-len), its certificates Ed448 too; through localsign verify', async () => {
    const p = await pki('ed448', ['-algorithm', 'ED448'], []);
    const cms = await cmsFramed(p, {
      dgst: ['-shake256', '-xoflen', '64'], digestAlgorithm: seq(oid(OID.shake256Len), uint(512)), signatureAlgorithm: seq(oid(OID.ed448)),
      sign: (i, out) => ['pkeyutl', '-sign', '-rawin', '-inkey', 'ed448-ee.key', '-in', i, '-out', out],
    });
    expect(judge(p, cms)).toMatchObject({ valid: true, digestValid: true, chain: { trusted: true }, algorithms: { digest: 'SHAKE256', signature: 'Ed448', key: 'Ed448' } });
    const file = join(dir, 'ed448.pdf');
    writeFileSync(file, withCms(frame, cms));
    const r = await runCliAsync(['verify', file, '--json', '--trust', p.rootPath, '--revocation', 'if-available'], { home: dir });
    const wire = parseJson<{ signatures: { valid: boolean; algorithms: Record<string, unknown> }[] }>(r).signatures[0]!;
    expect([r.status, wire.valid, wire.algorithms]).toEqual([0, true, { digest: 'SHAKE256', signature: 'Ed448', key: 'Ed448', acceptable_until: null, warnings: ["Ed448 is not in ETSI TS 119 312's table as EU DSS's default policy encodes it"] }]);
  });

  it('RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (openssl cms), its certificates PSS too; openssl verifies it as well', async () => {
    const p = await pki('pss', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072'], ['-sha256', '-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32']);
    const cms = await cmsByOpenssl(p, ['-md', 'sha256', '-keyopt', 'rsa_padding_mode:pss', '-keyopt', 'rsa_pss_saltlen:32']);
    expect((await opensslVerify(cms, frame.signedBytes, p.rootPath)).ok).toBe(true);
    const s = judge(p, cms);
    expect(s, s.problems.join('\n')).toMatchObject({ valid: true, digestValid: true, chain: { trusted: true } });
    expect(s.algorithms).toEqual({ digest: 'SHA-256', signature: 'RSASSA-PSS with SHA-256', key: 'RSA 3072', acceptableUntil: 2029, warnings: [] });
  });

  it('RSA with SHA3-256 (openssl cms -md sha3-256), its certificates sha3-256WithRSAEncryption', async () => {
    const p = await pki('rsa-sha3', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:3072'], ['-sha3-256']);
    const cms = await cmsByOpenssl(p, ['-md', 'sha3-256']);
    expect((await opensslVerify(cms, frame.signedBytes, p.rootPath)).ok).toBe(true);
    const s = judge(p, cms);
    expect(s, s.problems.join('\n')).toMatchObject({ valid: true, digestValid: true, chain: { trusted: true } });
    expect(s.algorithms).toMatchObject({ digest: 'SHA3-256', signature: 'RSA with SHA3-256', key: 'RSA 3072' });
  });

  it('ECDSA P-384 with SHA3-384 (openssl dgst -sign), its certificates ecdsa-with-SHA3-384', async () => {
    const p = await pki('ec-sha3', ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'], ['-sha3-384']);
    const cms = await cmsFramed(p, {
      dgst: ['-sha3-384'], digestAlgorithm: seq(oid(OID.sha3_384)), signatureAlgorithm: seq(oid(OID.ecdsaWithSha3_384)),
      sign: (i, out) => ['dgst', '-sha3-384', '-sign', 'ec-sha3-ee.key', '-out', out, i],
    });
    const s = judge(p, cms);
    expect(s, s.problems.join('\n')).toMatchObject({ valid: true, digestValid: true, chain: { trusted: true } });
    expect(s.algorithms).toMatchObject({ digest: 'SHA3-384', signature: 'ECDSA with SHA3-384', key: 'EC P-384', acceptableUntil: 2029 });
  });

  it('SHA-1 with RSA 1024: read, and too weak to trust (ETSI TS 119 312)', async () => {
    const p = await pki('weak', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'], ['-sha256']);
    const s = judge(p, await cmsByOpenssl(p, ['-md', 'sha1']));
    expect([s.valid, s.digestValid, s.chain.trusted]).toEqual([false, true, true]);
    expect(s.problems).toEqual([
      expect.stringMatching(/^too weak to trust: SHA-1 is acceptable for signatures until 2009 \(ETSI TS 119 312\), not at /),
      expect.stringMatching(/^too weak to trust: a RSA 1024 key is acceptable for signatures until 2009 \(ETSI TS 119 312\), not at /),
    ]);
  });
});
