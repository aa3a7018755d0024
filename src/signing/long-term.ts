/**
 * PAdES levels above B-T (ETSI EN 319 142-1 §5.4): after the signature, B-LT adds the DSS with the
 * chain and revocation data of the signer and of the timestamp's signer (one incremental update);
 * B-LTA adds a document timestamp over all of it (a further one). Every step appends: the signed
 * document stays an exact prefix of the output.
 */
import { SigningError } from '../domain/errors';
import type { PadesLevel } from '../domain/pades';
import type { ValidationData } from '../pades/sign';
import type { DocumentBytes } from '../store/file-bytes';
import type { DocumentWork } from '../workers/document-work';
import { StepFiles } from './step-files';
import type { HttpClient } from '../net/http-client';
import { collectValidationData, tokenCertificates, type RevocationSources } from './online';
import { fetchTimestampTokenForImprint } from './online';


export interface LongTermInput {
  /** The signed document (B-T): bytes, or a PDF worker's file. */
  pdf: DocumentBytes;
  level: 'B-LT' | 'B-LTA';
  /** Signer first, root last. */
  chain: Uint8Array[];
  /** The signature's /Contents string (zero padding included): its VRI key. */
  signatureContents: Uint8Array;
  /** The signature timestamp token (B-T): its TSA's certificates get revocation data too. */
  timestampToken: Uint8Array | null;
  tsaUrl: string | null;
  http: Pick<HttpClient, 'request'>;
  now: Date;
  signal?: AbortSignal;
  local?: RevocationSources['local'];
  /** The PDF workers the updates and the read-back check run in. */
  documentWork: DocumentWork;
  /** The job's step files: each update's input is let go once the update has made its output. */
  steps?: StepFiles;
}

export async function extendToLongTerm(o: LongTermInput): Promise<{ pdf: DocumentBytes; validation: ValidationData }> {
  const steps = o.steps ?? new StepFiles();
  const src: RevocationSources = { http: o.http, now: o.now, signal: o.signal, local: o.local };
  const validation = await collectValidationData(o.chain, o.timestampToken ? tokenCertificates(o.timestampToken) : [], src);
  // Each update is one step in a PDF worker; a large document stays in the workers' files.
  let pdf = steps.made(await o.documentWork.addDss(o.pdf, validation, [{ signatureContents: o.signatureContents, ...validation }], o.signal));
  await steps.done(o.pdf);
  if (o.level === 'B-LTA') {
    if (!o.tsaUrl) throw new SigningError('B-LTA needs a timestamp authority for its document timestamp');
    const prepared = await o.documentWork.prepareDocTimestamp(pdf, o.signal);
    steps.made(prepared.pdf);
    await steps.done(pdf);
    const token = await fetchTimestampTokenForImprint(o.http, o.tsaUrl, prepared.digest, { signal: o.signal });
    pdf = steps.made(await o.documentWork.finishDocTimestamp(prepared, token, o.signal));
    await steps.done(prepared.pdf);
  }
  await checkLevelReached(pdf, o);
  return { pdf, validation };
}

/**
 * CONTRACT "Before DONE the service verifies the signature it produced": the output is read back
 * by the validator, which must find our signature intact at the level asked (the DSS covering its
 * chain, the document timestamp valid), judged against the credential's own root.
 */
async function checkLevelReached(pdf: DocumentBytes, o: LongTermInput): Promise<void> {
  const report = await o.documentWork.validate(pdf, { trustAnchors: o.chain.slice(-1), now: o.now }, o.signal);
  const ours = report.signatures.filter((s) => s.kind === 'signature').at(-1);
  const last = report.signatures.at(-1);
  const problems = [...(ours?.problems ?? ['our signature is not found']), ...(o.level === 'B-LTA' && last?.kind === 'document_timestamp' ? last.problems : [])];
  const reached = ours?.level === o.level || (o.level === 'B-LT' && ours?.level === 'B-LTA');
  if (!reached || !ours?.digestValid || (o.level === 'B-LTA' && !last?.digestValid)) {
    throw new SigningError(`the ${o.level} output does not verify (reached ${ours?.level ?? 'nothing'}): ${problems.join('; ') || 'level not reached'}`);
  }
}
