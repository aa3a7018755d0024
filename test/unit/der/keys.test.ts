import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChain } from '../../../src/chip/pkcs11/key-inventory';
import { readCertificate } from '../../../src/der/certificate-fields';
import { DerError } from '../../../src/der/der';
import { namedCurveOf, sha256DigestInfo, unwrapEcPoint } from '../../../src/der/keys';
import { tempDir } from '../../helpers/temp-dir';

const certificateNames = (c: Uint8Array) => ({ issuer: readCertificate(c).issuer.raw, subject: readCertificate(c).subject.raw });
const certificatePublicKeyInfo = (c: Uint8Array) => readCertificate(c).spki.raw;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));

describe('namedCurveOf', () => {
  it('maps the namedCurve OIDs of RFC 5480 and SEC 2, and nothing else', () => {
    expect(namedCurveOf(fromHex('06082a8648ce3d030107'))).toBe('p256'); // 1.2.840.10045.3.1.7
    expect(namedCurveOf(fromHex('06052b8104000a'))).toBe('secp256k1'); // 1.3.132.0.10
    expect(namedCurveOf(fromHex('06052b81040022'))).toBeNull(); // secp384r1
    expect(namedCurveOf(fromHex('06092b2403030208010107'))).toBeNull(); // brainpoolP256r1
  });
});

describe('unwrapEcPoint', () => {
  const point = fromHex(`04${'11'.repeat(32)}${'22'.repeat(32)}`);
  it('unwraps the DER OCTET STRING of CKA_EC_POINT and accepts a bare point', () => {
    expect(hex(unwrapEcPoint(fromHex(`0441${hex(point)}`)))).toBe(hex(point));
    expect(hex(unwrapEcPoint(point))).toBe(hex(point));
  });
  it('refuses compressed or truncated points', () => {
    expect(() => unwrapEcPoint(fromHex(`0421${'02'}${'11'.repeat(32)}`))).toThrow(
      new DerError('unsupported EC point (33 bytes); expected an uncompressed 65-byte point'),
    );
    expect(() => unwrapEcPoint(fromHex('0441' + '04'.repeat(10)))).toThrow(DerError);
  });
});

describe('sha256DigestInfo', () => {
  it('prefixes the RFC 8017 §9.2 note 1 SHA-256 DigestInfo', () => {
    const digest = fromHex('ab'.repeat(32));
    expect(hex(sha256DigestInfo(digest))).toBe(`3031300d060960864801650304020105000420${'ab'.repeat(32)}`);
  });
});

describe('certificate names and chain building', () => {
  let dir: string;
  const certs: Record<string, Uint8Array> = {};

  beforeAll(() => {
    dir = tempDir('localsign-der-');
    const ossl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    ossl(['req', '-x509', ...ec, '-keyout', 'root.key', '-out', 'root.pem', '-subj', '/CN=Unit Root', '-days', '2']);
    // A second root with the same name as the intermediate's issuer must not be confused with
    // a real parent; here a decoy root with another name.
    ossl(['req', '-x509', ...ec, '-keyout', 'decoy.key', '-out', 'decoy.pem', '-subj', '/CN=Decoy Root', '-days', '2']);
    ossl(['req', '-new', ...ec, '-keyout', 'int.key', '-out', 'int.csr', '-subj', '/CN=Unit Intermediate']);
    writeFileSync(join(dir, 'ca.ext'), 'basicConstraints=critical,CA:TRUE\n');
    ossl(['x509', '-req', '-in', 'int.csr', '-CA', 'root.pem', '-CAkey', 'root.key', '-days', '2', '-extfile', 'ca.ext', '-out', 'int.pem']);
    ossl(['req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=Unit Leaf']);
    ossl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'int.pem', '-CAkey', 'int.key', '-days', '2', '-out', 'leaf.pem']);
    for (const name of ['root', 'decoy', 'int', 'leaf']) {
      certs[name] = new Uint8Array(new X509Certificate(readFileSync(join(dir, `${name}.pem`))).raw);
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads issuer and subject as the raw DER Names (v3 certificate with [0] version)', () => {
    const leaf = certs.leaf ?? new Uint8Array();
    const names = certificateNames(leaf);
    // Name ::= SEQUENCE OF RDN: CN=Unit Leaf / CN=Unit Intermediate, UTF8String as openssl writes them.
    expect(hex(names.subject)).toBe(`3014311230100603550403${'0c09'}${Buffer.from('Unit Leaf').toString('hex')}`);
    expect(hex(names.issuer)).toBe(`301c311a30180603550403${'0c11'}${Buffer.from('Unit Intermediate').toString('hex')}`);
  });

  it('finds the SubjectPublicKeyInfo node:crypto sees', () => {
    const leaf = certs.leaf ?? new Uint8Array();
    const spki = new X509Certificate(leaf).publicKey.export({ type: 'spki', format: 'der' });
    expect(hex(certificatePublicKeyInfo(leaf))).toBe(spki.toString('hex'));
  });

  it('builds the chain issuer first, root last, whatever the order of the pool', () => {
    const { leaf, int, root, decoy } = certs as Record<string, Uint8Array>;
    const chain = buildChain(leaf as Uint8Array, [root, decoy, leaf, int] as Uint8Array[]);
    expect(chain.map(hex)).toEqual([hex(int as Uint8Array), hex(root as Uint8Array)]);
    expect(buildChain(leaf as Uint8Array, [decoy as Uint8Array])).toEqual([]);
    expect(buildChain(root as Uint8Array, [int, leaf, root] as Uint8Array[])).toEqual([]);
  });
});
