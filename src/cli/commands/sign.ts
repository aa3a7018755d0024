import { readFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import type { ErrorResult, StampLocation } from '../../../clients/typescript/src/index';
import { CommandError, EXIT_FAILURE, EXIT_SIGNING_FAILED, EXIT_TIMEOUT, printData, printWarnings, repeatedFlag, UsageError } from '../output';
import { assertOutputFolder, writeOutputFile } from '../output-file';
import { startProgress } from '../progress';
import { serviceArgs, serviceClient } from '../service-client';
import { osErrorInWords } from '../../domain/os-errors';
import { PADES_LEVELS } from '../../domain/pades';

/**
 * `localsign sign pdf|hash`: signing for people and shell scripts, through the running service
 * (the same API, key and checks as any application; the service's log and audit see it as one).
 */

const waitArgs = {
  timeout: { type: 'string', description: 'Give up waiting after this many seconds (exit 6; the request goes on). Default: until DONE or ERROR' },
} as const;

function parseTimeout(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[0-9]+$/.test(String(value)) || Number(value) === 0) throw new UsageError(`--timeout must be a whole number of seconds, at least 1, got "${String(value).slice(0, 20)}"`);
  return Number(value) * 1000;
}

const isError = (r: { status: string }): r is ErrorResult => r.status === 'ERROR';

/** Waits for DONE or ERROR with a progress line on a terminal; an ERROR is exit 5 naming its record. */
async function waitForFinal<R extends { status: string }>(wait: () => Promise<R | ErrorResult>, requestId: string, what: string, timeoutMs: number | undefined): Promise<R> {
  const progress = startProgress(`${what}: waiting for ${requestId}`);
  let result: R | ErrorResult;
  try {
    result = await wait();
  } catch (e) {
    if ((e as Error).name === 'TimeoutError') {
      throw new CommandError(`${requestId} is still PENDING after ${Math.round(timeoutMs! / 1000)} s; it goes on: \`localsign results\` shows it`, EXIT_TIMEOUT);
    }
    throw e;
  } finally {
    progress.stop();
  }
  if (isError(result)) {
    throw new CommandError(`signing failed: ${result.error} (${requestId}, ${result.error_id}; details: \`localsign report ${requestId}\`)`, EXIT_SIGNING_FAILED);
  }
  return result;
}

/** `--var name=value`, repeatable. */
function parseVariables(rawArgs: string[]): Record<string, string> | undefined {
  const pairs = repeatedFlag(rawArgs, 'var');
  if (pairs.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--var takes name=value, got "${p.slice(0, 40)}"`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}

/**
 * Where the stamp is, for the person who will look for it: "Stamp on page 3 of 3 at x 36, y 36
 * (240 x 72 pt)", the box's lower-left corner from the page's lower-left, in points.
 */
function stampInWords(stamp: StampLocation): string {
  const [x1, y1, x2, y2] = stamp.rect as [number, number, number, number];
  const n = (v: number) => String(Math.round(v * 10) / 10);
  const where = stamp.page === null ? `on a page this document's page tree does not list (${stamp.page_count} pages)` : `on page ${stamp.page} of ${stamp.page_count}`;
  return `Stamp ${where} at x ${n(Math.min(x1, x2))}, y ${n(Math.min(y1, y2))} (${n(Math.abs(x2 - x1))} x ${n(Math.abs(y2 - y1))} pt)`;
}

/** A flag's value, or a usage error (exit 2) when it is empty: an unset variable in `--credential "$X"` is caught here, not by the service. */
function requiredValue(value: unknown, flag: string, what: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw new UsageError(`${flag} is empty: give ${what}`);
  return text;
}

function oneOf<T extends string>(value: string, flag: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got "${value.slice(0, 20)}"`);
  return value as T;
}

export const signPdfCommand = defineCommand({
  meta: { name: 'pdf', description: 'Sign a PDF through the running service (PAdES) and write the signed copy' },
  args: {
    ...serviceArgs,
    ...waitArgs,
    input: { type: 'positional', description: 'The PDF to sign', required: true },
    out: { type: 'string', alias: 'o', description: 'Where to write the signed PDF (written atomically; "-" for stdout)', required: true },
    credential: { type: 'string', description: 'credential_key of a pades credential (`localsign credentials`)', required: true },
    design: { type: 'string', description: "design_key of the stamp (default: the credential's default design)" },
    var: { type: 'string', description: 'A design variable, name=value (repeatable)' },
    reason: { type: 'string', description: 'Reason for signing (/Reason, and the stamp variable of that name)' },
    location: { type: 'string', description: 'Place of signing (/Location)' },
    'signer-name': { type: 'string', description: 'Name of the signer (/Name)' },
    level: { type: 'string', description: 'PAdES level: B-B, B-T, B-LT or B-LTA (default: the service\'s, B-T with a timestamp authority)' },
    certify: { type: 'string', description: 'Make it the certification signature: 1 (no change allowed), 2 (form filling and signing), 3 (also annotations)' },
  },
  async run({ args, rawArgs }) {
    const credential = requiredValue(args.credential, '--credential', 'a pades credential_key (`localsign credentials` lists them; `serve --demo` prints LOCALSIGN_PADES_CREDENTIAL)');
    const level = args.level === undefined ? undefined : oneOf(String(args.level), '--level', PADES_LEVELS);
    const certify = args.certify === undefined ? undefined : Number(oneOf(String(args.certify), '--certify', ['1', '2', '3'])) as 1 | 2 | 3;
    const variables = parseVariables(rawArgs);
    const timeoutMs = parseTimeout(args.timeout);
    const input = String(args.input);
    let pdf: Buffer;
    try {
      pdf = readFileSync(input);
    } catch (e) {
      throw new CommandError(`cannot read ${input}: ${osErrorInWords(e)}`, EXIT_FAILURE);
    }
    if (String(args.out) !== '-') assertOutputFolder(String(args.out));
    const client = serviceClient(args, rawArgs);
    const accepted = await client.signPdf({
      pdf,
      credential_key: credential,
      ...(args.design ? { design_key: String(args.design) } : {}),
      ...(level ? { level } : {}),
      ...(certify ? { certify } : {}),
      ...(variables ? { variables } : {}),
      ...(args.reason !== undefined ? { reason: String(args.reason) } : {}),
      ...(args.location !== undefined ? { location: String(args.location) } : {}),
      ...(args['signer-name'] !== undefined ? { signer_name: String(args['signer-name']) } : {}),
    });
    // The signed PDF itself, not its base64 in the result: a large document comes back once.
    const result = await waitForFinal(() => client.waitForPdf(accepted.request_id, { timeoutMs }), accepted.request_id, `Signing ${input}`, timeoutMs);
    const signed = result.pdf;
    const out = String(args.out);
    printWarnings(result.warnings);
    if (out === '-') {
      // stdout is the PDF: where to look goes to stderr, as the warnings do.
      if (result.stamp) process.stderr.write(`${stampInWords(result.stamp)}\n`);
      process.stdout.write(signed);
      return;
    }
    writeOutputFile(out, signed);
    printData(
      Boolean(args.json),
      { request_id: accepted.request_id, status: result.status, out, bytes: signed.length, warnings: result.warnings, stamp: result.stamp },
      () => `Signed ${input} -> ${out} (${signed.length} bytes, ${accepted.request_id})${result.stamp ? `\n${stampInWords(result.stamp)}` : ''}`,
    );
  },
});

export const signHashCommand = defineCommand({
  meta: { name: 'hash', description: 'Sign a keccak256 transaction hash through the running service; prints r, s, v, y_parity, address' },
  args: {
    ...serviceArgs,
    ...waitArgs,
    hash: { type: 'positional', description: 'The 32-byte hash: 64 hex digits, with or without 0x', required: true },
    credential: { type: 'string', description: 'credential_key of an evm credential (`localsign credentials`)', required: true },
    'chain-id': { type: 'string', description: 'EIP-155 chain id: v = chain_id * 2 + 35 + y_parity (default: none, v = 27 + y_parity)' },
  },
  async run({ args, rawArgs }) {
    const chain = args['chain-id'];
    if (chain !== undefined && !/^[0-9]{1,16}$/.test(String(chain))) throw new UsageError(`--chain-id must be a positive integer, got "${String(chain).slice(0, 20)}"`);
    const timeoutMs = parseTimeout(args.timeout);
    const client = serviceClient(args, rawArgs);
    const credential = requiredValue(args.credential, '--credential', 'an evm credential_key (`localsign credentials` lists them; `serve --demo` prints LOCALSIGN_EVM_CREDENTIAL)');
    const accepted = await client.signHash({ tx_hash: String(args.hash), credential_key: credential, ...(chain !== undefined ? { chain_id: Number(chain) } : {}) });
    const result = await waitForFinal(() => client.waitFor(accepted.request_id, { timeoutMs }), accepted.request_id, 'Signing the hash', timeoutMs);
    if (!('r' in result)) throw new CommandError(`${accepted.request_id} is not a hash signature`, EXIT_FAILURE);
    printData(Boolean(args.json), result, () =>
      [`r: ${result.r}`, `s: ${result.s}`, `v: ${result.v}`, `y_parity: ${result.y_parity}`, `address: ${result.address}`, `chain_id: ${result.chain_id ?? 'none'}`, `request_id: ${result.request_id}`].join('\n'),
    );
  },
});

export const signCommand = defineCommand({
  meta: { name: 'sign', description: 'Sign a PDF or a transaction hash through the running service' },
  subCommands: { pdf: signPdfCommand, hash: signHashCommand },
});
