/**
 * Wrappers around the real PDF verifiers. They PARSE the tools' text: pdfsig, qpdf and mutool exit
 * 0 on many failures, so an exit code alone proves nothing. A missing tool throws (tests fail,
 * never skip: STYLE.md habit 9).
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { byteRangeOf, findSignatureDictionaries, lintPadesBaselineB, type PadesLintResult } from './pades-lint';
import { tempDir } from './temp-dir';

const INSTALL_HINT: Record<string, string> = {
  pdfsig: 'poppler-utils',
  qpdf: 'qpdf',
  mutool: 'mupdf-tools',
  openssl: 'openssl',
};

export interface ToolRun {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs a tool and returns its text whatever the exit code; only a missing binary throws. */
export function runTool(tool: string, args: string[]): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { maxBuffer: 64 * 1024 * 1024, encoding: 'latin1' }, (error, stdout, stderr) => {
      const err = error as (NodeJS.ErrnoException & { code?: number | string }) | null;
      if (err && err.code === 'ENOENT') {
        reject(new Error(`${tool} is not installed: the PAdES conformance tests need it (apt-get install ${INSTALL_HINT[tool] ?? tool}); they never skip`));
        return;
      }
      resolve({ stdout, stderr, code: typeof err?.code === 'number' ? err.code : err ? 1 : 0 });
    });
  });
}

export interface PdfsigSignature {
  /** "Signature #n" as pdfsig numbers them (1-based, document order). */
  number: number;
  name: string | null;
  /** False for an empty signature field ("The signature form field is not signed."). */
  signed: boolean;
  signerCommonName: string | null;
  /** The text after "Signature Validation:", e.g. "Signature is Valid." */
  validation: string;
  signatureValid: boolean;
  /** The text after "Certificate Validation:", or "not checked" with -nocert. */
  certificateStatus: string;
  coversWholeDocument: boolean;
  subFilter: string | null;
  hashAlgorithm: string | null;
  /** /ByteRange rebuilt from "Signed Ranges: [a - b], [c - d]": [a, b - a, c, d - c]. */
  byteRange: [number, number, number, number] | null;
}

export interface PdfsigResult {
  signatures: PdfsigSignature[];
  raw: string;
}

/**
 * An NSS database (certutil, libnss3-tools) in `dir` trusting `roots` (DER) as CAs, for
 * `pdfsig -nssdir`: how a verifier that trusts our root sees the signatures.
 */
export async function createNssTrustDb(dir: string, roots: Uint8Array[]): Promise<string> {
  const db = `sql:${dir}`;
  const init = await runTool('certutil', ['-N', '-d', db, '--empty-password']);
  if (init.code !== 0) throw new Error(`certutil -N failed: ${init.stderr}`);
  for (const [i, root] of roots.entries()) {
    const file = join(dir, `root-${i}.der`);
    writeFileSync(file, root);
    const add = await runTool('certutil', ['-A', '-d', db, '-n', `root-${i}`, '-t', 'CT,C,C', '-i', file]);
    if (add.code !== 0) throw new Error(`certutil -A failed: ${add.stderr}`);
  }
  return db;
}

/**
 * `pdfsig [-nocert] file`. By default trust is not checked (`-nocert`); with `nssDir` (see
 * createNssTrustDb) pdfsig checks each signer's chain against the roots trusted there.
 */
export async function runPdfsig(file: string, options: { checkCertificate?: boolean; nssDir?: string } = {}): Promise<PdfsigResult> {
  const args = options.nssDir ? ['-nssdir', options.nssDir, file] : options.checkCertificate ? [file] : ['-nocert', file];
  const run = await runTool('pdfsig', args);
  const raw = run.stdout + run.stderr;
  const blocks = raw.split(/^Signature #(?=\d+:)/m).slice(1);
  const signatures = blocks.map((block): PdfsigSignature => {
    const field = (label: string): string | null => {
      const m = new RegExp(`^\\s*- ${label}: (.*)$`, 'm').exec(block);
      return m?.[1]?.trim() ?? null;
    };
    const validation = field('Signature Validation') ?? 'missing';
    const ranges = /Signed Ranges: \[(\d+) - (\d+)\], \[(\d+) - (\d+)\]/.exec(block);
    const r = ranges?.slice(1).map(Number);
    return {
      number: Number(/^(\d+):/.exec(block)?.[1]),
      name: field('Signature Field Name'),
      signed: !block.includes('The signature form field is not signed.'),
      signerCommonName: field('Signer Certificate Common Name'),
      validation,
      signatureValid: validation === 'Signature is Valid.',
      certificateStatus: field('Certificate Validation') ?? 'not checked',
      coversWholeDocument: /^\s*- Total document signed$/m.test(block),
      subFilter: field('Signature Type'),
      hashAlgorithm: field('Signing Hash Algorithm'),
      byteRange: r && r.length === 4 ? [r[0]!, r[1]! - r[0]!, r[2]!, r[3]! - r[2]!] : null,
    };
  });
  return { signatures, raw };
}

/** `qpdf --check`: ok only with "No syntax or stream encoding errors found" and no WARNING line. */
export async function qpdfCheck(file: string): Promise<{ ok: boolean; raw: string }> {
  const run = await runTool('qpdf', ['--check', file]);
  const raw = run.stdout + run.stderr;
  const ok = raw.includes('No syntax or stream encoding errors found') && !/WARNING/i.test(raw) && run.code === 0;
  return { ok, raw };
}

export type MutoolDigestStatus = 'unchanged' | 'edited-after-signing' | 'invalid' | 'not-signed' | 'unknown';

export interface MutoolSignature {
  objectNumber: number;
  distinguishedName: string | null;
  /** mutool's certificate line; it has no trust store for our test root, so "Unknown error." */
  certificateError: string | null;
  digest: MutoolDigestStatus;
  /** Digest intact: unchanged, or valid with later incremental updates (earlier signatures). */
  digestValid: boolean;
}

/** `mutool sign -v file`: one block per signature field ("Verifying signature N:"). */
export async function mutoolVerify(file: string): Promise<{ signatures: MutoolSignature[]; raw: string }> {
  const run = await runTool('mutool', ['sign', '-v', file]);
  const raw = run.stdout + run.stderr;
  const blocks = raw.split(/^Verifying signature (?=\d+:)/m).slice(1);
  const signatures = blocks.map((block): MutoolSignature => {
    const line = (label: string): string | null => new RegExp(`^\\s*${label}: (.*)$`, 'm').exec(block)?.[1]?.trim() ?? null;
    const digest: MutoolDigestStatus = block.includes('The document is unchanged since signing.')
      ? 'unchanged'
      : block.includes('The signature is valid but there have been edits since signing.')
        ? 'edited-after-signing'
        : /Digest error:/.test(block)
          ? 'invalid'
          : block.includes('Signature is not signed.')
            ? 'not-signed'
            : 'unknown';
    return {
      objectNumber: Number(/^(\d+):/.exec(block)?.[1]),
      distinguishedName: line('Distinguished name'),
      certificateError: line('Certificate error'),
      digest,
      digestValid: digest === 'unchanged' || digest === 'edited-after-signing',
    };
  });
  return { signatures, raw };
}

export interface ExtractedSignature {
  /** The DER CMS from /Contents with the zero padding after it removed. */
  cms: Uint8Array;
  /** The bytes the /ByteRange covers, concatenated: the detached content. */
  signedBytes: Uint8Array;
  byteRange: [number, number, number, number];
}

/** The n-th (0-based, file order) signature's CMS and covered bytes, read with the lint's scanner. */
export function extractCms(pdf: Uint8Array, index: number): ExtractedSignature {
  const sigs = findSignatureDictionaries(pdf);
  const sig = sigs[index];
  if (!sig) throw new Error(`signature ${index} not found: the file has ${sigs.length}`);
  const br = byteRangeOf(sig);
  const contents = sig.entries.get('Contents');
  if (!br || contents?.kind !== 'hex') throw new Error(`signature ${index} has no usable /ByteRange or /Contents`);
  const padded = Buffer.from(contents.value, 'hex');
  const signedBytes = new Uint8Array(br[1] + br[3]);
  signedBytes.set(pdf.subarray(br[0], br[0] + br[1]), 0);
  signedBytes.set(pdf.subarray(br[2], br[2] + br[3]), br[1]);
  return { cms: new Uint8Array(padded.subarray(0, derLength(padded))), signedBytes, byteRange: br };
}

/** Length of the (DER or BER indefinite-length) object at the start of `b`: what forge consumes. */
function derLength(b: Uint8Array): number {
  const buf = forge.util.createBuffer(Buffer.from(b).toString('latin1'));
  forge.asn1.fromDer(buf, { parseAllBytes: false, decodeBitStrings: false } as never);
  return b.length - buf.length();
}

/**
 * `openssl cms -verify` of a detached CMS over `content`, chained to `caFile`. `-purpose any`
 * because our signer certificates carry no extendedKeyUsage (CONTRACT: the profile Adobe accepts).
 */
export async function opensslCmsVerify(cmsDer: Uint8Array, content: Uint8Array, caFile: string): Promise<{ ok: boolean; raw: string }> {
  const dir = tempDir('localsign-cms-');
  try {
    const cmsPath = join(dir, 'sig.der');
    const contentPath = join(dir, 'content.bin');
    writeFileSync(cmsPath, cmsDer);
    writeFileSync(contentPath, content);
    const run = await runTool('openssl', [
      'cms', '-verify', '-binary', '-inform', 'DER', '-in', cmsPath, '-content', contentPath,
      '-CAfile', caFile, '-purpose', 'any', '-out', join(dir, 'out.bin'),
    ]);
    const raw = run.stdout + run.stderr;
    return { ok: /Verification successful/.test(raw) && !/Verification failure/.test(raw), raw };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SignedPdfReport {
  /** pdfsig's signed signatures only (empty fields dropped), in document order. */
  pdfsig: PdfsigSignature[];
  qpdf: { ok: boolean; raw: string };
  /** mutool's signed fields only, in its order. */
  mutool: MutoolSignature[];
  lint: PadesLintResult;
  raw: { pdfsig: string; mutool: string };
}

/** Every independent opinion on a signed file: pdfsig, qpdf --check, mutool sign -v and our lint. */
export async function inspectSignedPdf(file: string, bytes: Uint8Array): Promise<SignedPdfReport> {
  const [pdfsig, qpdf, mutool] = await Promise.all([runPdfsig(file), qpdfCheck(file), mutoolVerify(file)]);
  return {
    pdfsig: pdfsig.signatures.filter((s) => s.signed),
    qpdf,
    mutool: mutool.signatures.filter((s) => s.digest !== 'not-signed'),
    lint: lintPadesBaselineB(bytes),
    raw: { pdfsig: pdfsig.raw, mutool: mutool.raw },
  };
}

export interface QpdfSignatureField {
  name: string;
  /** The page its widget is on, counted from 1 (qpdf's `pageposfrom1`); null when it is on none. */
  page: number | null;
  /** Its widget's /Rect as written. */
  rect: number[];
}

/**
 * The signature fields of a PDF and its page count as qpdf reads them (`--json=2`: the acroform
 * fields with the page of each widget, then each widget object's /Rect): a reader we did not write,
 * for checking where a stamp is.
 */
export async function qpdfSignatureFields(file: string): Promise<{ pageCount: number; fields: QpdfSignatureField[] }> {
  const run = await runTool('qpdf', ['--json=2', '--json-key=pages', '--json-key=acroform', file]);
  if (run.code !== 0 && run.code !== 3) throw new Error(`qpdf --json failed on ${file}: ${run.stderr}`);
  const doc = JSON.parse(run.stdout) as { pages: unknown[]; acroform: { fields: { fieldtype: string; fullname: string; pageposfrom1: number; annotation: { object: string } }[] } };
  const fields: QpdfSignatureField[] = [];
  for (const f of doc.acroform.fields.filter((x) => x.fieldtype === '/Sig')) {
    const id = /^(\d+) (\d+) R$/.exec(f.annotation.object);
    if (!id) throw new Error(`qpdf named the widget ${f.annotation.object}`);
    const obj = await runTool('qpdf', ['--json=2', '--json-key=qpdf', `--json-object=${id[1]} ${id[2]}`, file]);
    const value = (JSON.parse(obj.stdout) as { qpdf: [unknown, Record<string, { value: { '/Rect': number[] } }>] }).qpdf[1][`obj:${f.annotation.object}`]!.value;
    fields.push({ name: f.fullname, page: f.pageposfrom1 > 0 ? f.pageposfrom1 : null, rect: value['/Rect'] });
  }
  return { pageCount: doc.pages.length, fields };
}
