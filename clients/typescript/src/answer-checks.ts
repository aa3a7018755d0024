import type { Credential, EvmResult } from './api-types.js';
import { fromBase64 } from './base64.js';
import type { CryptoBackend } from './crypto-backend.js';
import { LocalsignAnswerError } from './errors.js';
import { evmAnswerProblem } from './evm-answer.js';
import { padesAnswerProblem } from './pades-answer.js';

/**
 * Every signing result the client returns is first checked against the credential (GET
 * /v1/credentials, read fresh for each check: a sync may have changed it): the proof on an answer
 * says the service holds this key, not that the answer is what the service said, and an answer is
 * only worth what it can be checked against. For a request this client made, the check knows what
 * was asked (the hash and chain_id, the input's SHA-256); for another one (a request id from
 * elsewhere) it checks what the answer carries against every credential of its kind.
 */

type Sent =
  | { kind: 'evm'; credentialKey: string; hash: Uint8Array; chainId: number | null }
  | { kind: 'pades'; credentialKey: string; input: { length: number; sha256: Uint8Array } | null };

/**
 * Requests remembered per client: the service keeps 10,000 results (CONTRACT), and an entry is a
 * few dozen bytes; beyond that the oldest are forgotten and checked as requests from elsewhere.
 */
const REMEMBERED = 10_000;

export class AnswerChecks {
  private readonly sent = new Map<string, Sent>();

  constructor(
    private readonly credentials: (signal?: AbortSignal) => Promise<Credential[]>,
    private readonly crypto: CryptoBackend,
  ) {}

  remember(requestId: string, sent: Sent): void {
    this.sent.delete(requestId);
    this.sent.set(requestId, sent);
    if (this.sent.size > REMEMBERED) this.sent.delete(this.sent.keys().next().value!);
  }

  /** Throws LocalsignAnswerError unless `answer` is the signature of the credential asked for. */
  async checkEvm(requestId: string, answer: EvmResult, signal?: AbortSignal): Promise<void> {
    const sent = this.sent.get(requestId);
    const fail = (problem: string): never => {
      throw new LocalsignAnswerError(requestId, sent?.credentialKey ?? null, problem);
    };
    if (answer.request_id !== requestId) fail(`it is the result of ${String(answer.request_id).slice(0, 40)}`);
    if (sent?.kind === 'pades') fail('an EVM signature answered a PDF signing request');
    const evm = (await this.credentials(signal)).filter((c) => c.type === 'evm' && typeof c.address === 'string');
    let problem: string | null;
    if (sent?.kind === 'evm') {
      const credential = evm.find((c) => c.credential_key === sent.credentialKey);
      if (!credential) return fail(`credential ${sent.credentialKey} is not among this key's evm credentials (GET /v1/credentials)`);
      problem = evmAnswerProblem(answer, { address: credential.address!, request: { hash: sent.hash, chainId: sent.chainId } });
    } else {
      const named = String(answer.address).toLowerCase();
      const credential = evm.find((c) => c.address!.toLowerCase() === named);
      problem = credential ? evmAnswerProblem(answer, { address: credential.address! }) : `it names address ${String(answer.address).slice(0, 50)}, which is none of this key's evm credentials`;
    }
    if (problem) fail(problem);
  }

  /**
   * Throws LocalsignAnswerError unless `pdf` carries the credential's signature over what was
   * sent; `answeredFor`: the request id a JSON result names, which must be the one asked for.
   */
  async checkPdf(requestId: string, pdf: Uint8Array, signal?: AbortSignal, answeredFor: string = requestId): Promise<void> {
    const sent = this.sent.get(requestId);
    const fail = (problem: string): never => {
      throw new LocalsignAnswerError(requestId, sent?.credentialKey ?? null, problem);
    };
    if (answeredFor !== requestId) fail(`it is the result of ${String(answeredFor).slice(0, 40)}`);
    if (sent?.kind === 'evm') fail('a PDF answered an EVM signing request');
    const pades = (await this.credentials(signal)).filter((c) => c.type === 'pades' && (sent === undefined || c.credential_key === sent.credentialKey));
    const certificates = pades.flatMap((c) => (c.certificate_chain?.[0] ? [fromBase64(c.certificate_chain[0])] : []));
    if (certificates.length === 0) fail(sent ? `credential ${sent.credentialKey} is not among this key's pades credentials with a certificate (GET /v1/credentials)` : 'this key has no pades credential with a certificate (GET /v1/credentials)');
    let problem: string | null;
    try {
      problem = await padesAnswerProblem(pdf, { certificates, input: sent?.kind === 'pades' ? sent.input : null }, this.crypto);
    } catch (e) {
      problem = `it could not be checked: ${(e as Error).message}`;
    }
    if (problem) fail(problem);
  }
}
