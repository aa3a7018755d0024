import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCommand } from 'citty';
import { buildConfig } from '../../config/config';
import { readEnv } from '../../config/env';
import { InvalidInputError, PdfInputError } from '../../domain/errors';
import { escapeStrings } from '../../log/escape';
import { HttpClient } from '../../net/http-client';
import { requirePdfHeader } from '../../signing/validation';
import { describeReport, loadTrustAnchors, notAPdfReport, verifyPdf, type WireReport } from '../../signing/validation';
import { DocumentWork } from '../../workers/document-work';
import { resolvePdfProcessEntry } from '../../workers/entry';
import { EXIT_FAILURE, printData, UsageError } from '../output';
import { REVOCATION_POLICIES, type RevocationPolicy } from '../../domain/pades';
import { osErrorInWords } from '../../domain/os-errors';
import { homePaths } from '../../config/paths';
import { demoCrlOf, type EmbeddedConfig } from '../../platform/embedded-config';
import { readFileIfExists } from '../../store/atomic-file';

/** The demo CRL of the config dir's embedded platform (embedded.json), or null: never an error here. */
function demoCrlIn(path: string): ReturnType<typeof demoCrlOf> {
  try {
    const raw = readFileIfExists(path);
    return raw ? demoCrlOf(JSON.parse(raw.toString('utf8')) as EmbeddedConfig) : null;
  } catch {
    return null;
  }
}

/**
 * `localsign verify FILE.pdf [--json] [--trust FILE] [--online] [--revocation require|if-available]`:
 * the same report as POST /v1/pades/verify, without a running service, offline unless `--online`
 * is asked. Exit 0 when every signature is valid, 1 otherwise (the report is printed either way).
 * Every file it can open gets a report, a damaged PDF, an unreadable one or one that is not a PDF
 * at all: `valid: false` and the reason in `problems`; only a file it cannot open, and a document
 * over a limit (the route's 422), end with one red line instead.
 */
/**
 * Prints the report: every string of it may come from the document (field names, subjects,
 * problems quoting it), escaped like the logs before the lines are formatted, so a crafted name
 * cannot move the cursor and print "overall: VALID" over the real verdict. --json
 * prints the report itself (printData escapes what JSON.stringify leaves raw).
 */
function print(json: boolean, report: WireReport): void {
  printData(json, report, () => describeReport(escapeStrings(report)));
  if (!report.valid) process.exitCode = EXIT_FAILURE;
}

export const verifyCommand = defineCommand({
  meta: { name: 'verify', description: 'Check the signatures of a PDF locally: digest, changes after each, chain to --trust anchors, timestamp, embedded revocation, PAdES level; exit 1 unless all are valid' },
  args: {
    file: { type: 'positional', description: 'The PDF to check', required: true },
    json: { type: 'boolean', description: 'Machine-readable output (the POST /v1/pades/verify answer)' },
    trust: { type: 'string', description: 'PEM file of trust anchors (default env LOCALSIGN_TRUST; none: no chain is trusted)' },
    online: { type: 'boolean', description: 'Also fetch OCSP/CRL answers for certificates the document holds no revocation data for (through the proxy settings)' },
    revocation: {
      type: 'string',
      valueHint: 'require|if-available',
      description: 'require (default): a certificate whose revocation status cannot be determined is not trusted; if-available: only a revoked one is not',
    },
  },
  async run({ args }) {
    const revocation = (args.revocation ?? 'require') as RevocationPolicy;
    if (!REVOCATION_POLICIES.includes(revocation)) throw new UsageError(`--revocation must be ${REVOCATION_POLICIES.join(' or ')}, not ${JSON.stringify(String(args.revocation))}`);
    const env = readEnv();
    const config = buildConfig(env, { trustFile: typeof args.trust === 'string' && args.trust !== '' ? args.trust : undefined });
    let pdf: Uint8Array;
    try {
      pdf = new Uint8Array(readFileSync(String(args.file)));
    } catch (e) {
      throw new InvalidInputError(`cannot read ${String(args.file)}: ${osErrorInWords(e)}`);
    }
    try {
      requirePdfHeader(pdf, String(args.file));
    } catch (e) {
      if (!(e instanceof PdfInputError)) throw e;
      print(Boolean(args.json), notAPdfReport(e.message));
      return;
    }
    const http = args.online ? new HttpClient(config.net) : null;
    // The same PDF worker and limits as the service's verify route; a document over
    // 4 MiB reaches the worker through a private temporary folder.
    let scratch: string | null = null;
    const work = DocumentWork.fromConfig(config.documents, resolvePdfProcessEntry(), () => (scratch ??= mkdtempSync(join(tmpdir(), 'localsign-verify-'))));
    try {
      // The demo CA's CRL is this config dir's own: answered from it, whatever port its URL names.
      const demo = http ? demoCrlIn(homePaths(config.home).embedded) : null;
      const local = (url: string) => (demo && demo.url === url ? demo.der : null);
      print(Boolean(args.json), await verifyPdf(work, pdf, loadTrustAnchors(config.trustFile), new Date(), { online: http ? { http, local } : undefined, revocation }));
    } finally {
      await work.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      await http?.close();
    }
  },
});
