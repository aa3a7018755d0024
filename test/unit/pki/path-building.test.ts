/**
 * Path building (pki/chain.ts) where names match several certificates, on certificates the real
 * openssl CLI made: a CA re-issued with the same name and key, another CA of the same name with
 * another key, a cross-certified loop, anchors that are not roots, and a pool of hundreds of
 * namesakes (issued by pki/issue-certificate.ts under the openssl root).
 */
import { createPrivateKey, generateKeyPairSync, sign as cryptoSign } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPath } from '../../../src/pki/chain';
import { issueCertificate } from '../../../src/pki/issue-certificate';
import { openssl } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

let dir: string;
const certs: Record<string, Uint8Array> = {};
/** A day after the certificates were made, well inside their 30 days. */
let AT: Date;

const CA = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';
const CA_WITHOUT_KEY_CERT_SIGN = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,digitalSignature\n';
const LEAF = 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation\n';

async function key(name: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`], dir);
}

/** A DER certificate `name` for `subject` with key `subjectKey`, signed by `issuerKey` under the issuer certificate `issuer` (PEM). */
async function issue(o: { name: string; subject: string; subjectKey: string; issuer: string; issuerKey: string; ext: string; serial: number }): Promise<void> {
  writeFileSync(join(dir, `${o.name}.ext`), o.ext);
  await openssl(['req', '-new', '-key', `${o.subjectKey}.key`, '-subj', o.subject, '-out', `${o.name}.csr`], dir);
  await openssl(['x509', '-req', '-in', `${o.name}.csr`, '-CA', `${o.issuer}.pem`, '-CAkey', `${o.issuerKey}.key`, '-set_serial', String(o.serial), '-days', '30', '-extfile', `${o.name}.ext`, '-out', `${o.name}.pem`], dir);
  await openssl(['x509', '-in', `${o.name}.pem`, '-outform', 'DER', '-out', `${o.name}.der`], dir);
  certs[o.name] = new Uint8Array(readFileSync(join(dir, `${o.name}.der`)));
}

async function selfSigned(name: string, subject: string): Promise<void> {
  writeFileSync(join(dir, `${name}.ext`), CA);
  await openssl(['req', '-x509', '-new', '-key', `${name}.key`, '-subj', subject, '-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', `${name}.pem`], dir);
  await openssl(['x509', '-in', `${name}.pem`, '-outform', 'DER', '-out', `${name}.der`], dir);
  certs[name] = new Uint8Array(readFileSync(join(dir, `${name}.der`)));
}

beforeAll(async () => {
  dir = tempDir('localsign-path-building-');
  AT = new Date(Date.now() + 86_400_000);
  for (const k of ['root', 'inter', 'other', 'leaf', 'a', 'b', 'loopLeaf']) await key(k);
  await selfSigned('root', '/CN=Building Root');
  // The same CA twice (same name, same key): once without keyCertSign, once right; and a namesake with its own key.
  await issue({ name: 'interBad', subject: '/CN=Building CA', subjectKey: 'inter', issuer: 'root', issuerKey: 'root', ext: CA_WITHOUT_KEY_CERT_SIGN, serial: 2 });
  await issue({ name: 'interGood', subject: '/CN=Building CA', subjectKey: 'inter', issuer: 'root', issuerKey: 'root', ext: CA, serial: 3 });
  await issue({ name: 'interOther', subject: '/CN=Building CA', subjectKey: 'other', issuer: 'root', issuerKey: 'root', ext: CA, serial: 4 });
  await issue({ name: 'leaf', subject: '/CN=Building Signer', subjectKey: 'leaf', issuer: 'interGood', issuerKey: 'inter', ext: LEAF, serial: 5 });
  // A and B certify each other; nothing leads to the root.
  await selfSigned('b', '/CN=Loop B');
  await issue({ name: 'aByB', subject: '/CN=Loop A', subjectKey: 'a', issuer: 'b', issuerKey: 'b', ext: CA, serial: 6 });
  await issue({ name: 'bByA', subject: '/CN=Loop B', subjectKey: 'b', issuer: 'aByB', issuerKey: 'a', ext: CA, serial: 7 });
  await issue({ name: 'loopLeaf', subject: '/CN=Loop Signer', subjectKey: 'loopLeaf', issuer: 'aByB', issuerKey: 'a', ext: LEAF, serial: 8 });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('path building with several candidates of one name', () => {
  it('passes over a namesake whose key does not verify and a re-issue that fails validation', () => {
    const { leaf, interOther, interBad, interGood, root } = certs as Record<string, Uint8Array>;
    const r = buildPath(leaf!, [interOther!, interBad!, interGood!], [root!], AT);
    expect(r).toMatchObject({ trusted: true, failures: [], policies: [] });
    expect(r.path).toEqual([leaf, interGood, root]);
  });

  it('reports the failures of the path it found when no candidate is valid', () => {
    const { leaf, interOther, interBad, root } = certs as Record<string, Uint8Array>;
    expect(buildPath(leaf!, [interBad!], [root!], AT)).toMatchObject({
      trusted: false, path: [leaf, interBad, root], failures: ['issuer CN=Building CA has a keyUsage without keyCertSign'],
    });
    expect(buildPath(leaf!, [interOther!], [root!], AT)).toMatchObject({
      trusted: false, path: [leaf, interOther, root], failures: ['signature of CN=Building Signer does not verify with the key of CN=Building CA'],
    });
  });

  it('stops at a loop of cross-certificates and names it', () => {
    const { loopLeaf, aByB, bByA, root } = certs as Record<string, Uint8Array>;
    expect(buildPath(loopLeaf!, [aByB!, bByA!], [root!], AT)).toMatchObject({
      trusted: false, path: [loopLeaf, aByB, bByA], failures: ['the path loops at CN=Loop A'],
    });
  });

  it('ends at any anchor: an intermediate the operator trusts, or the signer certificate itself', () => {
    const { leaf, interGood } = certs as Record<string, Uint8Array>;
    expect(buildPath(leaf!, [], [interGood!], AT)).toMatchObject({ trusted: true, path: [leaf, interGood], failures: [] });
    expect(buildPath(leaf!, [], [leaf!], AT)).toMatchObject({ trusted: true, path: [leaf], failures: [] });
  });

  it('bounds the signature checks a pool of namesakes can cause, and says so', () => {
    const { leaf, interGood, root } = certs as Record<string, Uint8Array>;
    const rootKey = createPrivateKey(readFileSync(join(dir, 'root.key')));
    const namesake = (i: number): Uint8Array => issueCertificate({
      subject: { CN: 'Building CA' }, issuer: { CN: 'Building Root' }, issuerCertificate: root!, issuerAlgorithm: 'p256', ca: true,
      subjectPublicKey: new Uint8Array(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' })),
      serial: Uint8Array.of(0x10, i >> 8, i & 0xff), notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + 10 * 86_400_000),
      sign: (tbs) => new Uint8Array(cryptoSign('sha256', tbs, rootKey)),
    });
    const few = Array.from({ length: 100 }, (_, i) => namesake(i));
    expect(buildPath(leaf!, [...few, interGood!], [root!], AT)).toMatchObject({ trusted: true, path: [leaf, interGood, root] });
    const many = Array.from({ length: 300 }, (_, i) => namesake(i));
    const r = buildPath(leaf!, [...many, interGood!], [root!], AT);
    expect(r.trusted).toBe(false);
    expect(r.failures).toEqual(['path building stopped after 256 signature checks (too many certificates of the same name)']);
  });

  it('names a signer certificate it cannot read', () => {
    const r = buildPath(Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x01), [], [certs.root!], AT);
    expect(r.trusted).toBe(false);
    expect(r.failures).toEqual([expect.stringMatching(/^the certificate \(unreadable certificate\) cannot be read: /)]);
  });
});
