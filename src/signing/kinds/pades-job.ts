/**
 * The PAdES kind's job (its table is pades.ts): loaded on first use, since it pulls in the
 * document work, which nothing on the way to the first /health should pay for.
 */
import { SigningError } from '../../domain/errors';
import type { PreparedPades, StampLocation } from '../../pades/sign';
import { byteLength, readSlice, type DocumentBytes } from '../../store/file-bytes';
import type { PreparedDocument } from '../../workers/document-work';
import { removeStepFile, StepFiles } from '../step-files';
import type { PreparedRecord } from '../../store/document-store';
import type { RequestEntry } from '../../store/request-store';
import { fetchTimestampToken } from '../online';
import { extendToLongTerm } from '../long-term';
import { ecdsaRawToDer, signatureContentsAt, signatureValueMatches } from '../../pades/cms';
import type { RawSignature, SigningEngine } from '../engine';
import type { Job, JobDeps, JobRun } from '../job-types';
import type { KindJob } from '../kind';
import { chipPinOf } from '../chip-pin';
import { prepareFields } from '../stamp-values';
import type { PadesLevel } from '../../domain/pades';
import { levelOf, padesCredentials, PADES_WIRE, type PadesParams } from './pades';

/** The prepared state as the document store keeps it (for a platform that answers after a restart). */
function toRecord(prepared: PreparedDocument): PreparedRecord {
  const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');
  return {
    pdf: prepared.pdf,
    meta: {
      contentsOffset: prepared.contentsOffset,
      contentsHexLength: prepared.contentsHexLength,
      byteRange: prepared.byteRange,
      signedAttributes: b64(prepared.signedAttributes),
      digest: b64(prepared.digest),
      algorithm: prepared.algorithm,
      certificateChain: prepared.certificateChain.map(b64),
      warnings: prepared.warnings,
      stampAt: prepared.stampAt,
    },
  };
}

function fromRecord(record: PreparedRecord): PreparedDocument {
  const m = record.meta as { contentsOffset: number; contentsHexLength: number; byteRange: PreparedPades['byteRange']; signedAttributes: string; digest: string; algorithm: PreparedPades['algorithm']; certificateChain: string[]; warnings?: string[]; stampAt?: PreparedPades['stampAt'] };
  const bytes = (b64: string) => new Uint8Array(Buffer.from(b64, 'base64'));
  return {
    pdf: record.pdf,
    contentsOffset: m.contentsOffset,
    contentsHexLength: m.contentsHexLength,
    byteRange: m.byteRange,
    signedAttributes: bytes(m.signedAttributes),
    digest: bytes(m.digest),
    algorithm: m.algorithm,
    certificateChain: m.certificateChain.map(bytes),
    // Prepared states written before warnings existed have none.
    warnings: Array.isArray(m.warnings) ? m.warnings : [],
    stampAt: m.stampAt ?? null,
  };
}

/** A stamp's place as results carry it (the PAdES result's `stamp`). */
function stampOnWire(at: StampLocation): { page: number | null; page_count: number; rect: number[] } {
  return { page: at.page, page_count: at.pageCount, rect: [...at.rect] };
}

/** Prepare step: the input with its field and placeholders, and the digest to sign. */
async function prepare(entry: RequestEntry<PadesParams>, deps: JobDeps, run: JobRun, certificateChain: Uint8Array[]): Promise<PreparedDocument> {
  // A large input goes to the PDF worker as its durable work file: the service does not read it back.
  const pdf = await deps.documents.inputDocument(entry.requestId);
  if (!pdf) throw new SigningError('the document of this request is no longer on disk; submit it again');
  // The prepared document holds the input as its prefix: a large input is let go from memory
  // (its work file stays until the request is final), so it is not held twice while signing.
  deps.documents.spill(entry.requestId);
  const p = entry.params;
  const design = p.designKey ? run.accepted?.design ?? deps.findDesign(p.designKey) : null;
  if (p.designKey && !design) throw new SigningError(`design ${p.designKey} is no longer in the cache`);
  return deps.documentWork.prepare({
    pdf,
    certificateChain,
    ...prepareFields(p, design ?? null, deps.now()),
    reserveTimestamp: levelOf(entry, deps) !== 'B-B',
    // Where the check before the 202 put the stamp: not decided again. A request
    // resumed after a restart has none, and prepare decides as that check did.
    placement: run.accepted?.placement ?? null,
  }, run.signal);
}

/**
 * The SignatureValue of the CMS SignerInfo (RFC 5652 §5.4) from an engine's raw signature: RSA as
 * it is, ECDSA r‖s as Ecdsa-Sig-Value (RFC 5753 §7.2), checked with the credential's certificate
 * before it goes into the document: a signature by another key is refused, never embedded.
 */
function signatureValueOf(answer: RawSignature, prepared: PreparedDocument, credentialKey: string, engine: SigningEngine): Uint8Array {
  const value = prepared.algorithm === 'p256' ? ecdsaRawToDer(answer.signature) : answer.signature;
  if (!signatureValueMatches(prepared.signedAttributes, value, prepared.certificateChain[0]!)) {
    throw new SigningError(`${engine.signer}'s signature does not verify with the certificate of credential ${credentialKey} (signed with another key?); the document was not signed`);
  }
  return value;
}

/**
 * The prepared document this run signs, from one of three places. A remote engine may answer
 * minutes later, after a restart: its prepared document is kept on disk before the digest leaves,
 * and the answer must fit those same bytes (`kept`). A small document was prepared with its check
 * before the 202 (acceptPades, pades.ts), usable when the room it left for a timestamp is what
 * the level needs. Otherwise it is prepared now. For a remote engine a new one is kept (a
 * worker's file is adopted as the prepared PDF, not copied); otherwise its file is a step's.
 */
async function preparedFor(entry: RequestEntry<PadesParams>, deps: JobDeps, run: JobRun, level: PadesLevel, chain: Uint8Array[], steps: StepFiles): Promise<{ prepared: PreparedDocument; kept: boolean }> {
  const record = run.engine.remote && run.resumed ? await deps.documents.readPrepared(entry.requestId) : null;
  if (record) return { prepared: fromRecord(record), kept: true };
  const early = run.accepted?.prepared;
  const prepared = early && early.reserveTimestamp === (level !== 'B-B') ? early.document : await prepare(entry, deps, run, chain);
  if (run.engine.remote) return { prepared: { ...prepared, pdf: await deps.documents.savePrepared(entry.requestId, toRecord(prepared)) }, kept: false };
  steps.made(prepared.pdf);
  return { prepared, kept: false };
}

/** B-LT and B-LTA (ETSI EN 319 142-1 §5.4, §5.5): the DSS, then for B-LTA the document timestamp, added to the signed document. */
async function longTerm(signed: DocumentBytes, o: { level: PadesLevel; prepared: PreparedDocument; chain: Uint8Array[]; timestampToken: Uint8Array | null; deps: JobDeps; run: JobRun; steps: StepFiles }): Promise<DocumentBytes> {
  const { level, prepared, deps } = o;
  if (level !== 'B-LT' && level !== 'B-LTA') return signed;
  const contents = await readSlice(signed, prepared.contentsOffset, prepared.contentsHexLength);
  const extended = await extendToLongTerm({
    pdf: signed,
    level,
    chain: o.chain,
    signatureContents: signatureContentsAt(contents, 0, prepared.contentsHexLength),
    timestampToken: o.timestampToken,
    tsaUrl: deps.tsaUrl,
    http: deps.http,
    now: deps.now(),
    signal: o.run.signal,
    local: deps.localRevocation,
    documentWork: deps.documentWork,
    steps: o.steps,
  });
  return extended.pdf;
}

/**
 * PAdES signing in the steps the engine defines: the prepared document (prepare: PDF -> digest of
 * the signed attributes), the request's engine signs the digest, its answer made the CMS
 * SignatureValue and checked, the timestamp (B-T), finish (signature -> signed PDF), the long-term
 * updates (B-LT, B-LTA). The output is verified before DONE (CONTRACT "Before DONE the service
 * verifies the signature it produced").
 */
export const runPadesJob: Job<PadesParams> = async (entry, deps, run) => {
  // Its PDF work takes turns with other applications' (workers/pool.ts): counted as its caller's.
  deps = { ...deps, documentWork: deps.documentWork.forOwner(entry.wrapperKey ?? '') };
  const level = levelOf(entry, deps);
  // Accepted while a TSA was configured, resumed after a restart without one: say so, sign nothing.
  if (level !== 'B-B' && !deps.tsaUrl) throw new SigningError(`level ${level} needs a timestamp authority and the service has none now (serve --tsa-url)`);
  const credential = run.accepted?.credential ?? deps.findCredential(entry.credentialKey);
  if (!credential || credential.type !== padesCredentials.name || !credential.certificate_chain) {
    throw new SigningError(`credential ${entry.credentialKey} is no longer a PAdES credential in the cache`);
  }
  const chain = credential.certificate_chain.map((c) => new Uint8Array(Buffer.from(c, 'base64')));
  // Large documents move between the steps as files a PDF worker wrote (work/xfer-*.tmp): each is
  // removed once the next step has made its own, and the last one becomes the result.
  const steps = new StepFiles();
  try {
    // Before the document work: a PIN lost to a restart ends the request without preparing.
    const pin = chipPinOf(entry, run);
    const { prepared, kept } = await preparedFor(entry, deps, run, level, chain, steps);
    const digestHex = Buffer.from(prepared.digest).toString('hex');
    const answer = await run.engine.sign(
      {
        requestId: entry.requestId,
        credential,
        digest: prepared.digest,
        algorithm: prepared.algorithm === 'p256' ? 'ecdsa-p256' : 'rsa-pkcs1-sha256',
        label: { ...PADES_WIRE, chainId: null },
        // Only a prepared state on disk means the digest may already be with a remote engine.
        resumed: kept,
        pin,
        caller: entry.wrapperKey ?? undefined,
        onSigning: () => run.signing(digestHex),
      },
      run.signal,
    );
    run.signed(digestHex);
    const signatureValue = signatureValueOf(answer, prepared, entry.credentialKey, run.engine);
    const timestampToken = level !== 'B-B' ? await fetchTimestampToken(deps.http, deps.tsaUrl!, signatureValue, { signal: run.signal }) : null;
    // The PDF worker signs the prepared document in place and reads the signature back.
    const signed = steps.made(await deps.documentWork.finish(prepared, signatureValue, timestampToken, run.signal));
    await steps.done(prepared.pdf);
    const result = await longTerm(signed, { level, prepared, chain, timestampToken, deps, run, steps });
    steps.keep(result);
    return {
      result: {
        bytes: byteLength(result),
        level,
        // CONTRACT: a PAdES result may add `warnings` (a stamp moved to free space, …).
        ...(prepared.warnings.length > 0 ? { warnings: prepared.warnings } : {}),
        // Where the stamp went (a page and a box), so the caller can say where to look.
        ...(prepared.stampAt ? { stamp: stampOnWire(prepared.stampAt) } : {}),
      },
      digestHex,
      // The result's file is adopted as results/<id>.pdf (synced and renamed, not copied); if that
      // fails it is removed (work/ is swept of such files at the next start anyway).
      persist: () => deps.documents.writeResult(entry.requestId, result).catch(async (error: unknown) => {
        await removeStepFile(result);
        throw error;
      }),
      discard: () => deps.documents.discardResult(entry.requestId),
    };
  } catch (error) {
    await steps.discard();
    throw error;
  }
};

export const padesJob: KindJob<PadesParams> = {
  run: runPadesJob,
  // Waiting for a slot: a large document waits on disk, not in memory.
  queued: (entry, deps) => deps.documents.spill(entry.requestId),
  // The digest is known only once the document is prepared (JobRun.signed names it).
  auditDigest: () => null,
  digestOut: async (entry, deps) => (await deps.documents.readPrepared(entry.requestId)) !== null,
  release: (entry, deps, engine) => deps.documents.releaseWork(entry.requestId, { prepared: engine.remote }),
};
