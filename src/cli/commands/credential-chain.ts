import { X509Certificate } from 'node:crypto';
import type { Credential } from '../../../clients/typescript/src/index';
import { escapeControls as shown } from '../../log/escape';
import { CommandError, EXIT_FAILURE, printData, UsageError } from '../output';
import { assertOutputFolder, writeOutputFile } from '../output-file';

/**
 * `localsign credentials --chain KEY [--pem] [--out FILE]`: a PAdES credential's
 * certificate chain as `GET /v1/credentials` gives it (`certificate_chain`: base64 DER, signer
 * first, root last, CONTRACT), and with `--pem` its root alone, the trust anchor `verify --trust`
 * and `serve --trust` take: the README's `verify signed.pdf --trust demo-root.pem` needs that file,
 * and nothing wrote it before.
 */

export interface ChainArgs {
  chain: string;
  pem: boolean;
  out: string | undefined;
  json: boolean;
}

/** The flags' own rules, checked before the service is asked. */
export function checkChainArgs(args: Record<string, unknown>): ChainArgs | null {
  const chain = typeof args.chain === 'string' ? args.chain : undefined;
  const out = typeof args.out === 'string' && args.out !== '' ? args.out : undefined;
  if (chain === undefined || chain === '') {
    if (args.pem || out !== undefined) throw new UsageError('--pem and --out go with --chain KEY: localsign credentials --chain KEY --pem [--out root.pem]');
    if (chain === '') throw new UsageError('--chain needs a credential_key (`localsign credentials` lists them)');
    return null;
  }
  if (out !== undefined && !args.pem) throw new UsageError('--out writes the root as PEM: add --pem');
  if (out !== undefined) assertOutputFolder(out);
  return { chain, pem: Boolean(args.pem), out, json: Boolean(args.json) };
}

function pemOf(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/** Node's `O=localsign demo\nCN=Demo CA` (DER order) as verify prints names (RFC 4514 order: `CN=Demo CA,O=localsign demo`). */
const oneLine = (name: string) => name.split('\n').reverse().join(',');

function selfSigned(cert: X509Certificate): boolean {
  try {
    return cert.checkIssued(cert) && cert.verify(cert.publicKey);
  } catch {
    return false;
  }
}

function certificatesOf(credential: Credential): X509Certificate[] {
  const key = shown(credential.credential_key);
  // A pades credential comes with its chain (CONTRACT GET /v1/credentials); the others have none.
  if (!('certificate_chain' in credential)) throw new CommandError(`${key} is an ${shown(credential.type)} credential: only pades credentials have a certificate chain`, EXIT_FAILURE);
  const chain = credential.certificate_chain ?? [];
  if (chain.length === 0) throw new CommandError(`the service gives no certificate_chain for ${key}`, EXIT_FAILURE);
  return chain.map((b64, i) => {
    try {
      return new X509Certificate(Buffer.from(b64, 'base64'));
    } catch {
      throw new CommandError(`certificate_chain[${i}] of ${key} is not a DER X.509 certificate`, EXIT_FAILURE);
    }
  });
}

export function printChain(credentials: Credential[], args: ChainArgs): void {
  const credential = credentials.find((c) => c.credential_key === args.chain);
  if (!credential) throw new CommandError(`no credential ${shown(args.chain.slice(0, 64))} for this application key (\`localsign credentials\` lists them)`, EXIT_FAILURE);
  const certs = certificatesOf(credential);
  const root = certs.at(-1)!;
  if (!args.pem) {
    printData(args.json, { credential_key: credential.credential_key, certificate_chain: credential.certificate_chain }, () =>
      certs
        .map((c, i) => `${i + 1}. ${shown(oneLine(c.subject))}${i === 0 ? '  (signer)' : ''}${i === certs.length - 1 ? (selfSigned(c) ? '  (root)' : '  (last given; not self-signed)') : ''}`)
        .join('\n'),
    );
    return;
  }
  // A chain that stops short of a self-signed root: its last certificate is the best anchor there is; said on stderr.
  if (!selfSigned(root)) process.stderr.write(`warning: the last certificate of ${shown(credential.credential_key)}'s chain (${shown(oneLine(root.subject))}) is not self-signed: the platform gave no root\n`);
  const pem = pemOf(root.raw);
  if (args.out === undefined) {
    process.stdout.write(pem);
    return;
  }
  writeOutputFile(args.out, pem);
  printData(args.json, { credential_key: credential.credential_key, out: args.out, subject: oneLine(root.subject) }, () => `Wrote the root of ${shown(credential.credential_key)} (${shown(oneLine(root.subject))}) to ${shown(args.out!)}`);
}
