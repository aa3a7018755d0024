import { readFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { buildConfig } from '../../config/config';
import { readEnv } from '../../config/env';
import { InvalidInputError } from '../../errors/errors';
import { HttpClient } from '../../net/http-client';
import { requirePdfHeader } from '../../pades/base64-repair';
import { describeReport, loadTrustAnchors, verifyPdf } from '../../signing/verify-pdf';
import { EXIT_FAILURE, printData } from '../output';

/**
 * `localsign verify FILE.pdf [--json] [--trust FILE] [--online]` (issue 12): the same report as
 * POST /v1/pades/verify, without a running service, offline unless `--online` is asked. Exit 0
 * when every signature is valid, 1 otherwise (the report is printed either way).
 */
export const verifyCommand = defineCommand({
  meta: { name: 'verify', description: 'Check the signatures of a PDF locally: digest, changes after each, chain to --trust anchors, timestamp, embedded revocation, PAdES level; exit 1 unless all are valid' },
  args: {
    file: { type: 'positional', description: 'The PDF to check', required: true },
    json: { type: 'boolean', description: 'Machine-readable output (the POST /v1/pades/verify answer)' },
    trust: { type: 'string', description: 'PEM file of trust anchors (default env LOCALSIGN_TRUST; none: no chain is trusted)' },
    online: { type: 'boolean', description: 'Also fetch OCSP/CRL answers for certificates the document holds no revocation data for (through the proxy settings)' },
  },
  async run({ args }) {
    const env = readEnv();
    const config = buildConfig(env, { trustFile: typeof args.trust === 'string' && args.trust !== '' ? args.trust : undefined });
    let pdf: Uint8Array;
    try {
      pdf = new Uint8Array(readFileSync(String(args.file)));
    } catch (e) {
      throw new InvalidInputError(`cannot read ${String(args.file)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    requirePdfHeader(pdf, String(args.file));
    const http = args.online ? new HttpClient(config.net) : null;
    try {
      const report = await verifyPdf(pdf, loadTrustAnchors(config.trustFile), new Date(), http ? { http } : undefined);
      printData(Boolean(args.json), report, () => describeReport(report));
      if (!report.valid) process.exitCode = EXIT_FAILURE;
    } finally {
      await http?.close();
    }
  },
});
