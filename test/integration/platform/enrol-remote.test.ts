import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsync } from '../../helpers/cli';
import { startPlatformDouble, type PlatformDouble } from '../../helpers/platform-double';
import { makeTmpHome } from '../../helpers/tmp-home';

/** Issue 9 fleet enrolment, with the remote platform: the code is read once, used once, never shown. */
describe('enrol against the platform double', () => {
  let double: PlatformDouble;
  beforeAll(async () => {
    double = await startPlatformDouble();
  });
  afterAll(async () => double?.stop());

  it('pairs from the file, deletes it, prints no code; a used code keeps the file', async () => {
    const tmp = makeTmpHome();
    const other = makeTmpHome();
    const code = await double.control.createPairingCode();
    const file = join(other.home, 'enrol');
    writeFileSync(file, `PLATFORM=${double.url}\nCODE=${code}\n`, { mode: 0o600 });
    const r = await runCliAsync(['enrol', '--file', file, '--json'], { home: tmp.home });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ paired: true, platform: 'remote', tenant_id: double.tenantId });
    expect(existsSync(file)).toBe(false);
    expect(r.stdout + r.stderr).not.toContain(code);
    writeFileSync(file, `PLATFORM=${double.url}\nCODE=${code}\n`, { mode: 0o600 });
    try {
      const used = await runCliAsync(['enrol', '--file', file], { home: other.home });
      expect(used.status).toBe(1);
      expect(used.stderr).toContain('the platform refused the pairing code');
      expect(used.stderr).not.toContain(code);
      expect(readFileSync(file, 'utf8')).toContain(code);
    } finally {
      tmp.cleanup();
      other.cleanup();
    }
  });
});
