/**
 * A real RFC 3161 timestamp authority for tests: an HTTP server on 127.0.0.1 (RFC 3161 §3.4,
 * application/timestamp-query -> application/timestamp-reply) that answers with `openssl ts -reply`,
 * signing with a TSA certificate (extendedKeyUsage critical timeStamping, RFC 3161 §2.3) issued by
 * a temp CA made with the openssl CLI.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './temp-dir';

const run = promisify(execFile);

export interface LocalTsa {
  url: string;
  caCertPem: string;
  caCertPath: string;
  dir: string;
  /** Answers one DER TimeStampReq without HTTP (the same path the server takes). */
  reply(query: Uint8Array): Promise<Uint8Array>;
  /** Number of queries answered over HTTP. */
  readonly requests: number;
  close(): Promise<void>;
}

const config = (dir: string, tsaExtensions = ''): string => `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[v3_tsa]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
${tsaExtensions}
[tsa]
default_tsa = tsa_config
[tsa_config]
dir = ${dir}
serial = $dir/tsaserial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/tsa-ca.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.57264.99.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

async function makeTsaPki(dir: string, tsaExtensions?: string): Promise<void> {
  writeFileSync(join(dir, 'tsa.cnf'), config(dir, tsaExtensions));
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  const ec = ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  await openssl(['genpkey', ...ec, '-out', 'tsa-ca.key'], dir);
  await openssl(['req', '-x509', '-new', '-key', 'tsa-ca.key', '-subj', '/C=ES/O=localsign test/CN=localsign Test TSA Root',
    '-days', '3650', '-sha256', '-config', 'tsa.cnf', '-extensions', 'v3_ca', '-out', 'tsa-ca.pem'], dir);
  await openssl(['genpkey', ...ec, '-out', 'tsa.key'], dir);
  await openssl(['req', '-new', '-key', 'tsa.key', '-subj', '/C=ES/O=localsign test/CN=localsign Test TSA',
    '-config', 'tsa.cnf', '-out', 'tsa.csr'], dir);
  await openssl(['x509', '-req', '-in', 'tsa.csr', '-CA', 'tsa-ca.pem', '-CAkey', 'tsa-ca.key', '-set_serial', '0x2a',
    '-days', '825', '-sha256', '-extfile', 'tsa.cnf', '-extensions', 'v3_tsa', '-out', 'tsa.pem'], dir);
}

/**
 * `tsaExtensions`: extra lines for the TSA certificate's extensions (for example
 * `crlDistributionPoints = URI:…`, so B-LT can fetch its revocation data); the TSA CA's key is
 * `dir`/tsa-ca.key and its certificate `caCertPath`.
 */
export async function startLocalTsa(options: { tsaExtensions?: string } = {}): Promise<LocalTsa> {
  const dir = tempDir('localsign-tsa-');
  await makeTsaPki(dir, options.tsaExtensions);
  let counter = 0;
  let requests = 0;
  // openssl ts -reply rewrites the serial file: answer one query at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const reply = (query: Uint8Array): Promise<Uint8Array> => {
    const n = ++counter;
    const job = queue.then(async () => {
      writeFileSync(join(dir, `q${n}.der`), query);
      await openssl(['ts', '-reply', '-config', 'tsa.cnf', '-queryfile', `q${n}.der`, '-out', `r${n}.der`], dir);
      return new Uint8Array(readFileSync(join(dir, `r${n}.der`)));
    });
    queue = job.catch(() => undefined);
    return job;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
        res.writeHead(415, { 'content-type': 'text/plain' }).end('expected POST application/timestamp-query');
        return;
      }
      requests++;
      reply(new Uint8Array(Buffer.concat(chunks))).then(
        (der) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from(der)),
        (e: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(e.message),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const caCertPath = join(dir, 'tsa-ca.pem');
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    caCertPem: readFileSync(caCertPath, 'utf8'),
    caCertPath,
    dir,
    reply,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
