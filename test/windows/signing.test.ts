import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertWine, createPrefix, runWine, type WinePrefix } from './wine';

/**
 * Issue 9: the Windows executable carries its identity (VERSIONINFO written by resedit after
 * postject) and is Authenticode-signed with osslsigncode when a certificate is supplied. Here with
 * a throwaway self-signed code-signing certificate: the signature verifies against it, a changed
 * byte breaks it, and the signed executable still runs. Not shown: Windows' own trust decision
 * (SmartScreen, a publicly trusted certificate, WinVerifyTrust), which needs Windows.
 */
const ROOT = resolve(__dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('localsign.exe: version resource and Authenticode (osslsigncode, throwaway certificate)', () => {
  let dir: string;
  let wine: WinePrefix;
  const osslsigncode = (args: string[]) => spawnSync('osslsigncode', args, { encoding: 'utf8' });

  beforeAll(async () => {
    assertWine();
    dir = mkdtempSync(join(tmpdir(), 'localsign-sign-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localsign test signer', '-addext', 'extendedKeyUsage=codeSigning', '-addext', 'keyUsage=digitalSignature', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    copyFileSync(join(ROOT, 'dist', 'localsign.exe'), join(dir, 'localsign.exe'));
    wine = await createPrefix();
  }, 120_000);
  afterAll(() => {
    wine?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('names itself localsign with the package version and the commit (not "Node.js")', () => {
    const info = JSON.parse(execFileSync(process.execPath, ['build/windows-exe.mjs', 'info', join(dir, 'localsign.exe')], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!) as { strings: Record<string, string>; fixed: { fileVersionMS: number; fileVersionLS: number } };
    const commit = (JSON.parse(readFileSync(join(ROOT, 'dist', 'build-info.json'), 'utf8')) as { commit: string }).commit;
    expect(info.strings).toMatchObject({ ProductName: 'localsign', FileVersion: VERSION, ProductVersion: `${VERSION} (${commit})`, OriginalFilename: 'localsign.exe', CompanyName: 'localsign' });
    const [a, b, c] = VERSION.split('.').map(Number) as [number, number, number];
    expect(info.fixed).toMatchObject({ fileVersionMS: (a << 16) | b, fileVersionLS: c << 16 });
  });

  it('is unsigned as built without a certificate, signed by the build step with one; the signature verifies, a changed byte breaks it', () => {
    const exe = join(dir, 'localsign.exe');
    const unsigned = osslsigncode(['verify', '-in', exe]);
    expect(unsigned.stdout + unsigned.stderr).toContain('No signature found');
    execFileSync(process.execPath, ['build/windows-exe.mjs', 'sign', exe], { cwd: ROOT, env: { ...process.env, LOCALSIGN_SIGN_CERT: join(dir, 'cert.pem'), LOCALSIGN_SIGN_KEY: join(dir, 'key.pem') }, stdio: 'ignore' });
    const ok = osslsigncode(['verify', '-in', exe, '-CAfile', join(dir, 'cert.pem')]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Signature verification: ok');
    expect(ok.stdout).toContain('localsign test signer');
    expect(ok.stdout).toMatch(/Message digest algorithm\s*:\s*SHA256/i);

    const tampered = join(dir, 'tampered.exe');
    const bytes = readFileSync(exe);
    bytes[4096] = bytes[4096]! ^ 0xff; // in the code section, which the signature covers
    writeFileSync(tampered, bytes);
    const bad = osslsigncode(['verify', '-in', tampered, '-CAfile', join(dir, 'cert.pem')]);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/mismatch|failed/i);
  }, 120_000);

  it('still runs once signed (the SEA blob is a resource the signature covers, untouched)', async () => {
    const run = await runWine(wine, [join(dir, 'localsign.exe'), '--version']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(new RegExp(`^${VERSION.replace(/\./g, '\\.')} \\([0-9a-f]{7,}(, test build)?\\)$`));
  }, 120_000);
});
