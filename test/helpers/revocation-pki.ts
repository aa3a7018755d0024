/**
 * Revocation services for a test PKI, with the real openssl CLI behind a loopback HTTP server:
 * `GET /crl/NAME.crl` serves the CRL `openssl ca -gencrl` made from the CA's index, and
 * `POST /ocsp/NAME` answers an RFC 6960 request with `openssl ocsp -index … -reqin … -respout`
 * (RFC 6960 Appendix A.1: application/ocsp-request -> application/ocsp-response).
 * `createRevocationPki` issues a root, an intermediate and a signer whose certificates name these
 * URLs (authorityInfoAccess OCSP, cRLDistributionPoints), so a signer can fetch what B-LT needs.
 * Test-only: spawns openssl and writes to temp dirs.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generateKey, openssl, pemToDer, PKI_OPENSSL_CONFIG, selfSignRoot } from './test-pki';
import { tempDir } from './temp-dir';

interface CaEntry {
  dir: string;
  /** Chains openssl calls on one CA: its index and serial files are rewritten by each. */
  queue: Promise<unknown>;
}

export interface RevocationServer {
  url: string;
  crlUrl(ca: string): string;
  ocspUrl(ca: string): string;
  /** Serves CRL and OCSP for the CA `name` (cert and key as PEM files) from now on. */
  addCa(name: string, certPath: string, keyPath: string): Promise<void>;
  /** Lists a certificate as valid in its CA's index (openssl ocsp answers `unknown` otherwise). */
  register(ca: string, certPath: string): Promise<void>;
  /** Revokes it: the CRL is made again and OCSP answers `revoked`. */
  revoke(ca: string, certPath: string): Promise<void>;
  /** URLs that answer 503 (a responder that is down). */
  readonly down: Set<string>;
  readonly hits: { ocsp: number; crl: number };
  close(): Promise<void>;
}

const caConfig = `[ca]
default_ca = CA_default
[CA_default]
database = index.txt
crlnumber = crlnumber
certificate = ca.pem
private_key = ca.key
default_md = sha256
default_crl_days = 30
`;

export async function startRevocationServer(): Promise<RevocationServer> {
  const cas = new Map<string, CaEntry>();
  const down = new Set<string>();
  const hits = { ocsp: 0, crl: 0 };
  const onCa = <T>(name: string, work: (dir: string) => Promise<T>): Promise<T> => {
    const ca = cas.get(name);
    if (!ca) return Promise.reject(new Error(`unknown CA ${name}`));
    const job = ca.queue.then(() => work(ca.dir));
    ca.queue = job.catch(() => undefined);
    return job;
  };
  const gencrl = (dir: string) => openssl(['ca', '-config', 'ca.cnf', '-gencrl', '-out', 'crl.pem'], dir)
    .then(() => openssl(['crl', '-in', 'crl.pem', '-outform', 'DER', '-out', 'crl.der'], dir));
  let counter = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      const fail = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
      if (down.has(`${url}${path}`)) return fail(503, 'down for the test');
      const crl = /^\/crl\/([\w-]+)\.crl$/.exec(path);
      const ocsp = /^\/ocsp\/([\w-]+)$/.exec(path);
      if (crl && req.method === 'GET' && cas.has(crl[1]!)) {
        hits.crl++;
        return void onCa(crl[1]!, async (dir) => readFileSync(join(dir, 'crl.der'))).then(
          (der) => res.writeHead(200, { 'content-type': 'application/pkix-crl' }).end(der),
          (e: Error) => fail(500, e.message),
        );
      }
      if (ocsp && req.method === 'POST' && cas.has(ocsp[1]!)) {
        hits.ocsp++;
        const n = ++counter;
        return void onCa(ocsp[1]!, async (dir) => {
          writeFileSync(join(dir, `q${n}.der`), Buffer.concat(chunks));
          await openssl(['ocsp', '-index', 'index.txt', '-CA', 'ca.pem', '-rsigner', 'ca.pem', '-rkey', 'ca.key',
            '-ndays', '1', '-reqin', `q${n}.der`, '-respout', `r${n}.der`], dir);
          return readFileSync(join(dir, `r${n}.der`));
        }).then(
          (der) => res.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(der),
          (e: Error) => fail(500, e.message),
        );
      }
      fail(404, 'no such CA');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    crlUrl: (ca) => `${url}/crl/${ca}.crl`,
    ocspUrl: (ca) => `${url}/ocsp/${ca}`,
    async addCa(name, certPath, keyPath) {
      const dir = tempDir(`localsign-ca-${name}-`);
      writeFileSync(join(dir, 'ca.cnf'), caConfig);
      writeFileSync(join(dir, 'index.txt'), '');
      writeFileSync(join(dir, 'crlnumber'), '01\n');
      writeFileSync(join(dir, 'ca.pem'), readFileSync(certPath));
      writeFileSync(join(dir, 'ca.key'), readFileSync(keyPath));
      cas.set(name, { dir, queue: Promise.resolve() });
      await onCa(name, gencrl);
    },
    register: (ca, certPath) => onCa(ca, (dir) => openssl(['ca', '-config', 'ca.cnf', '-valid', certPath], dir)),
    revoke: (ca, certPath) => onCa(ca, async (dir) => {
      await openssl(['ca', '-config', 'ca.cnf', '-revoke', certPath, '-crl_reason', 'keyCompromise'], dir);
      await gencrl(dir);
    }),
    down,
    hits,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

export interface RevocationPki {
  /** DER: signer, intermediate, root. */
  chain: Uint8Array[];
  signerKeyPem: string;
  signerCertPath: string;
  caCertPem: string;
  caCertPath: string;
  /** CA names on the server: the intermediate answers OCSP for the signer, the root a CRL for the intermediate. */
  rootName: string;
  intermediateName: string;
  dir: string;
}

function serialHex(): string {
  const b = randomBytes(12);
  b[0] = (b[0]! & 0x7f) | 0x10;
  return `0x${b.toString('hex')}`;
}

/**
 * Root -> intermediate (cRLDistributionPoints: the root's CRL) -> signer (authorityInfoAccess OCSP
 * and cRLDistributionPoints of the intermediate), all registered on `server`. With `signerCrlOnly`
 * the signer names only the CRL (the fallback path of a certificate without a responder).
 */
export async function createRevocationPki(
  server: RevocationServer,
  o: { algorithm: 'rsa' | 'p256'; signerCn?: string; signerCrlOnly?: boolean },
): Promise<RevocationPki> {
  const dir = tempDir('localsign-ltv-pki-');
  const id = randomBytes(4).toString('hex');
  const rootName = `root-${id}`;
  const intermediateName = `int-${id}`;
  const signerAia = o.signerCrlOnly ? '' : `authorityInfoAccess = OCSP;URI:${server.ocspUrl(intermediateName)}\n`;
  writeFileSync(join(dir, 'pki.cnf'), `${PKI_OPENSSL_CONFIG}[intermediate]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
crlDistributionPoints = URI:${server.crlUrl(rootName)}
[ltv_signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
${signerAia}crlDistributionPoints = URI:${server.crlUrl(intermediateName)}
`);
  const issueWith = async (name: string, subject: string, issuer: string, section: string) => {
    await openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-config', 'pki.cnf', '-out', `${name}.csr`], dir);
    await openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-set_serial', serialHex(),
      '-days', '825', '-sha256', '-extfile', 'pki.cnf', '-extensions', section, '-out', `${name}.pem`], dir);
  };
  for (const k of ['root', 'intermediate', 'signer']) await generateKey(o.algorithm, `${k}.key`, dir);
  await selfSignRoot(dir, 'root', `/C=ES/O=localsign test/CN=LTV Root ${id}`);
  await issueWith('intermediate', `/C=ES/O=localsign test/CN=LTV Intermediate ${id}`, 'root', 'intermediate');
  await issueWith('signer', `/C=ES/O=localsign test/CN=${o.signerCn ?? 'LTV Signer'}`, 'intermediate', 'ltv_signer');
  await server.addCa(rootName, join(dir, 'root.pem'), join(dir, 'root.key'));
  await server.addCa(intermediateName, join(dir, 'intermediate.pem'), join(dir, 'intermediate.key'));
  await server.register(rootName, join(dir, 'intermediate.pem'));
  await server.register(intermediateName, join(dir, 'signer.pem'));
  const pem = (n: string) => readFileSync(join(dir, `${n}.pem`), 'utf8');
  return {
    chain: ['signer', 'intermediate', 'root'].map((n) => pemToDer(pem(n))),
    signerKeyPem: readFileSync(join(dir, 'signer.key'), 'utf8'),
    signerCertPath: join(dir, 'signer.pem'),
    caCertPem: pem('root'),
    caCertPath: join(dir, 'root.pem'),
    rootName,
    intermediateName,
    dir,
  };
}
