import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';

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
    cwd = mkdtempSync(join(tmpdir(), 'localsign-readme-'));
    symlinkSync(join(ROOT, 'test'), join(cwd, 'test'));
    symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
  });
  afterAll(async () => {
    await service.stop();
    rmSync(cwd, { recursive: true, force: true });
    home.cleanup();
  });

  it('signs a hash that ethers verifies and a PDF that pdfsig validates, as written', () => {
    const exports = Object.fromEntries([...service.output().matchAll(/export (LOCALSIGN_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(exports).sort()).toEqual(['LOCALSIGN_EVM_CREDENTIAL', 'LOCALSIGN_KEY', 'LOCALSIGN_PADES_CREDENTIAL', 'LOCALSIGN_SECRET']);
    const run = spawnSync('bash', ['-c', walkthroughScript()], {
      cwd,
      env: { ...process.env, ...exports, BASE: service.url },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const out = run.stdout + run.stderr;
    expect(run.status, out).toBe(0);
    expect(out).toContain('"service":"local-signing-service"');
    expect(out).toMatch(/ethers recovers 0x[0-9a-fA-F]{40}: OK/);
    expect(out).toMatch(/"v":3[78],/); // chain 1: 35 + 2 + y_parity
    expect(out).toContain('Signature Validation: Signature is Valid.');
    expect(out).toContain('Total document signed');
    expect(out).toContain('"results":[{');
  });
});
