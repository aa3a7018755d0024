// One whole process of a small script signing a file through a running localsign, as an
// integrator writes it with the TypeScript client (issue 10: "a small script posting the PDF to a
// running service, waiting for DONE and writing the file"): read the PDF, signPdf (a large
// document goes raw on its own), waitForPdf (the signed bytes, no base64), write the file.
// LOCALSIGN_BENCH_TRANSPORT chooses instead of the client: `raw`, or `json` for the JSON API both
// ways (pdf_base64 in the POST, the result's pdf_base64 from GET /v1/results/{id}: waitFor).
// Bundled by test/bench/run.mjs; `node whole-localsign.cjs IN OUT` with LOCALSIGN_URL, _KEY,
// _SECRET and _CREDENTIAL in the environment.
import { readFileSync, writeFileSync } from 'node:fs';
import { LocalsignClient } from '../../clients/typescript/src/index';

async function main(): Promise<void> {
  const [input, output] = process.argv.slice(2) as [string, string];
  const env = process.env;
  const client = new LocalsignClient({ baseUrl: env.LOCALSIGN_URL, key: env.LOCALSIGN_KEY, secret: env.LOCALSIGN_SECRET });
  if (env.LOCALSIGN_BENCH_TRANSPORT === 'json') {
    const accepted = await client.signPdf({ pdf: readFileSync(input), credential_key: env.LOCALSIGN_CREDENTIAL! }, { transport: 'json' });
    const result = await client.waitFor(accepted.request_id);
    if (result.status !== 'DONE' || !('pdf_base64' in result)) throw new Error(`${accepted.request_id}: ${JSON.stringify(result).slice(0, 300)}`);
    writeFileSync(output, Buffer.from(result.pdf_base64, 'base64'));
    return;
  }
  const transport = env.LOCALSIGN_BENCH_TRANSPORT === 'raw' ? 'raw' : 'auto';
  const accepted = await client.signPdf({ pdf: readFileSync(input), credential_key: env.LOCALSIGN_CREDENTIAL! }, { transport });
  const result = await client.waitForPdf(accepted.request_id);
  if (result.status !== 'DONE') throw new Error(`${accepted.request_id}: ${JSON.stringify(result)}`);
  writeFileSync(output, result.pdf);
}
void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
