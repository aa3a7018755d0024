import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
import { tempDir } from '../../helpers/temp-dir';

const ROOT = resolve(__dirname, '../../..');

/** The README's walk-through blocks, in order: docs that stop matching the code fail here. */
function walkthroughScript(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- walkthrough:start');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  expect(start).toBeGreaterThan(0);
  const blocks = [...readme.slice(start, end).matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  return ['set -euo pipefail', ...blocks].join('\n');
}

describe('README walk-through', () => {
  const home = makeTmpHome();
  let service: ServiceProcess;
  let cwd: string;
  beforeAll(async () => {
    service = await startServiceProcess({ home: home.home, args: ['--demo'] });
    // A scratch dir that looks like the repo root to the README's relative paths.
    cwd = tempDir('localsign-readme-');
    symlinkSync(join(ROOT, 'test'), join(cwd, 'test'));
    symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
    symlinkSync(join(ROOT, 'dist'), join(cwd, 'dist'));
  });
  afterAll(async () => {
    await service.stop();
    rmSync(cwd, { recursive: true, force: true });
    home.cleanup();
  });

  it('signs a hash that ethers verifies and a PDF that pdfsig validates, as written, on the port the service took', () => {
    // Exactly the printed exports: BASE included (issue 11: the walk-through broke on any port but 8300).
    const exports = Object.fromEntries([...service.output().matchAll(/export ([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(exports).sort()).toEqual(['BASE', 'LOCALSIGN_EVM_CREDENTIAL', 'LOCALSIGN_KEY', 'LOCALSIGN_PADES_CREDENTIAL', 'LOCALSIGN_SECRET']);
    expect(exports.BASE).toBe(service.url);
    expect(service.port).not.toBe(8300);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.BASE;
    delete env.LOCALSIGN_URL;
    const run = spawnSync('bash', ['-c', walkthroughScript()], {
      cwd,
      // The reader's second terminal: the same config dir (their default one), the pasted exports.
      // The walk-through's `mktemp -d` inside a folder of this test's, removed with it.
      env: { ...env, LOCALSIGN_HOME: home.home, TMPDIR: tempDir('localsign-walkthrough-tmp-'), ...exports },
      encoding: 'utf8',
      timeout: 90_000,
    });
    const out = run.stdout + run.stderr;
    expect(run.status, out).toBe(0);
    expect(out).toContain('"service":"local-signing-service"');
    expect(out).toMatch(/ethers recovers 0x[0-9a-fA-F]{40}: OK/);
    expect(out).toMatch(/"v":3[78],/); // chain 1: 35 + 2 + y_parity
    expect(out).toContain('Signature Validation: Signature is Valid.');
    expect(out).toContain('Total document signed');
    expect(out).toContain('"results":[{');
    // The command-line signatures: a hash (r, s, v …) and a PDF pdfsig accepts.
    expect(out).toMatch(/^r: 0x[0-9a-f]{64}\ns: 0x[0-9a-f]{64}\nv: 3[78]\n/m);
    expect(out).toMatch(/Signed test\/vectors\/pdf\/pdflib-xref-table\.pdf -> \S+cli-signed\.pdf/);
    expect(out.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(3);
    // pdfsig with the demo root in an NSS database trusted CT,C,C.
    expect(out).toContain('Certificate Validation: Certificate is Trusted.');
    expect(out).toContain('Approval stamp: approval_id (required), signer_name');
    // `verify` of the CLI-signed PDF against the root `credentials --chain --pem` wrote (issue 19).
    expect(out).toMatch(/^Wrote the root of \S+ \(CN=localsign Demo Root CA,O=localsign demo \(not trusted\)\) to \S+demo-root\.pem$/m);
    expect(out).toMatch(/^1\. Signature1 \(signature, B-B\): VALID - CN=Demo Signer \(P-256\),O=localsign demo \(not trusted\)\noverall: VALID$/m);
    // Nothing left in the folder it ran in (issue 11: evm-result.json, sign-body.json, signed.pdf).
    expect(readdirSync(cwd).sort()).toEqual(['dist', 'node_modules', 'test']);
  });
});
