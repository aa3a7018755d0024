// Bundled and run by test/bench/run.mjs in a fresh process (issue 12): B-LT and B-LTA signing time
// for a small PDF, the engine and the signing layer as the service runs them, against real
// services on loopback: an openssl OCSP responder and CRLs (test/helpers/revocation-pki.ts) and the
// openssl ts TSA. Each figure is the whole request: prepare, sign, signature timestamp, finish,
// then revocation fetching, the DSS (and for B-LTA the document timestamp) and the read-back check.
// Prints one JSON line.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { HttpClient } from '../../src/net/http-client';
import { finishPades } from '../../src/pades/sign/finish';
import { preparePades } from '../../src/pades/sign/prepare';
import { verifyPades } from '../../src/pades/sign/verify';
import { ecdsaRawToDer } from '../../src/pades/cms/cms';
import { signatureContentsAt } from '../../src/pades/cms';
import { extendToLongTerm } from '../../src/signing/long-term';
import { inlineDocumentWork } from '../helpers/document-work';
import { fetchTimestampToken } from '../../src/signing/online/tsa-client';
import { startLocalTsa } from '../helpers/local-tsa';
import { createRevocationPki, startRevocationServer } from '../helpers/revocation-pki';
import { signDigest } from '../helpers/test-pki';

const ROUNDS = Number(process.env.BENCH_LTV_ROUNDS ?? 20);

async function main(): Promise<void> {
  const server = await startRevocationServer();
  const tsaCa = `tsa-${randomBytes(3).toString('hex')}`;
  const tsa = await startLocalTsa({ tsaExtensions: `crlDistributionPoints = URI:${server.crlUrl(tsaCa)}` });
  await server.addCa(tsaCa, tsa.caCertPath, join(tsa.dir, 'tsa-ca.key'));
  const pki = await createRevocationPki(server, { algorithm: 'p256', signerCn: 'Bench LTV Signer' });
  const http = new HttpClient({ httpProxy: null, httpsProxy: null, noProxy: null });
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]);
  const pdf = await doc.save();

  const once = async (level: 'B-T' | 'B-LT' | 'B-LTA'): Promise<number> => {
    const t0 = performance.now();
    const prepared = await preparePades({ pdf, certificateChain: pki.chain, signingTime: new Date(), reserveTimestamp: true });
    const value = ecdsaRawToDer(signDigest(pki.signerKeyPem, 'p256', prepared.digest));
    const token = await fetchTimestampToken(http, tsa.url, value);
    const signed = finishPades(prepared, value, { timestampToken: token });
    verifyPades(signed);
    if (level !== 'B-T') {
      await extendToLongTerm({
        pdf: signed, level, chain: pki.chain, signatureContents: signatureContentsAt(signed, prepared.contentsOffset, prepared.contentsHexLength),
        timestampToken: token, tsaUrl: tsa.url, http, now: new Date(), documentWork: inlineDocumentWork(),
      });
    }
    return performance.now() - t0;
  };
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const out: Record<string, number> = {};
  for (const level of ['B-T', 'B-LT', 'B-LTA'] as const) {
    await once(level); // warm-up
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) times.push(await once(level));
    out[level] = p50(times);
  }
  await Promise.all([server.close(), tsa.close(), http.close()]);
  console.log(JSON.stringify({ rounds: ROUNDS, p50Ms: out, hits: server.hits }));
}
void main();
