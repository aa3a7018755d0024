import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowsBinPath } from '../../src/install/windows-service';
import { authed } from '../helpers/service-process';
import { assertWine, createPrefix, DATA, freePort, INSTDIR, installedLocalsign, runWine, type WinePrefix, until } from './wine';

/**
 * Issue 19, the MSI under wine 8 (prefix set to Windows 10): built by build/installers.mjs with
 * wixl and signed with a throwaway certificate; `msiexec /i … /qn PLATFORM=embedded CODE=… PORT=…`
 * installs it per machine, registers the service through its ServiceInstall row (shawl hosting
 * localsign.exe, the arguments `localsign service install` uses), pairs from the enrolment file,
 * puts localsign on the system PATH and starts the service; a newer MSI over it keeps the data,
 * the wrapper keys and the pairing; `msiexec /x` removes it and keeps the data, PURGE=1 deletes it.
 *
 * What wine cannot show: Group Policy and Intune (they run this same `msiexec` command line as
 * SYSTEM, from a domain controller or the Intune agent), a real service control manager (recovery
 * actions, start before logon, the service account's rights), the data dir's ACL (wine's icacls
 * is a stub), Windows' trust decision on the signature, and MsiHiddenProperties: wine's msi ignores
 * it and writes every property into a verbose log (CODE in the WriteIniValues line too), so this
 * test runs msiexec without a log and checks the code is in no file and no output.
 */
const ROOT = resolve(__dirname, '../..');
const CODE = `enrol-${randomBytes(12).toString('hex')}`;

/** CommandLineToArgvW for what these command lines hold: spaces outside quotes split, quotes go. */
function argv(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe('MSI under wine (msiexec /qn, ServiceInstall via shawl, PATH, upgrade, removal, purge)', () => {
  let wine: WinePrefix;
  let work: string;
  const msi: Record<string, string> = {};
  let port: number;
  let wrapper: { key: string; secret: string };
  const kept: Record<string, string> = {};

  const { data, exe, health, scState, systemPath } = installedLocalsign(() => wine, () => port);
  const msiexec = (args: string[]) => runWine(wine, ['msiexec', ...args], {}, 180_000);
  /** DisplayVersion of each uninstall entry named localsign (Windows Installer writes a.b.c.d). */
  const installedVersions = async () =>
    (await runWine(wine, ['reg', 'query', 'HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall', '/s'])).stdout
      .split(/\r?\n(?=HKEY_)/)
      .filter((block) => /DisplayName\s+REG_SZ\s+localsign\s*$/m.test(block))
      .map((block) => /DisplayVersion\s+REG_SZ\s+(\S+)/.exec(block)?.[1]);
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));

  beforeAll(async () => {
    assertWine();
    for (const tool of ['wixl', 'msibuild', 'osslsigncode']) {
      if (spawnSync(tool, ['--help'], { stdio: 'ignore' }).error) throw new Error(`${tool} is missing: apt-get install wixl msitools osslsigncode (the MSI test never skips)`);
    }
    for (const f of ['localsign.exe', 'shawl.exe']) {
      if (!existsSync(join(ROOT, 'dist', f))) throw new Error(`dist/${f} is missing: run npm run test:windows, which builds it first`);
    }
    work = mkdtempSync(join(tmpdir(), 'localsign-msi-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localsign test signer', '-addext', 'extendedKeyUsage=codeSigning', '-addext', 'keyUsage=digitalSignature', '-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem')], { stdio: 'ignore' });
    for (const version of ['0.2.0', '0.2.1']) {
      const out = join(work, version);
      execFileSync(process.execPath, ['build/installers.mjs'], {
        cwd: ROOT,
        env: { ...process.env, LOCALSIGN_INSTALLERS: 'msi', LOCALSIGN_INSTALLERS_SKIP_SEA: '1', LOCALSIGN_INSTALLERS_OUT: out, LOCALSIGN_INSTALLERS_VERSION: version, LOCALSIGN_SIGN_CERT: join(work, 'cert.pem'), LOCALSIGN_SIGN_KEY: join(work, 'key.pem') },
        stdio: 'ignore',
      });
      msi[version] = join(out, `localsign-${version}-x64.msi`);
    }
    wine = await createPrefix();
    port = await freePort();
  }, 240_000);
  afterAll(() => {
    wine?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is Authenticode-signed (osslsigncode, SHA-256); a changed byte breaks the signature', () => {
    const ok = spawnSync('osslsigncode', ['verify', '-in', msi['0.2.0']!, '-CAfile', join(work, 'cert.pem')], { encoding: 'utf8' });
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Signature verification: ok');
    expect(ok.stdout).toContain('localsign test signer');
    const bytes = readFileSync(msi['0.2.0']!);
    const at = Math.floor(bytes.length / 2); // inside the embedded cabinet, which the signature covers
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(join(work, 'tampered.msi'), bytes);
    const bad = spawnSync('osslsigncode', ['verify', '-in', join(work, 'tampered.msi'), '-CAfile', join(work, 'cert.pem')], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
  }, 60_000);

  it("refuses to install over the NSIS setup (its uninstall entry present): both would own the same service", async () => {
    const nsisKey = 'HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\localsign';
    expect((await runWine(wine, ['reg', 'add', nsisKey, '/v', 'UninstallString', '/d', `"${INSTDIR}\\uninstall.exe"`, '/f'])).code).toBe(0);
    try {
      const run = await msiexec(['/i', msi['0.2.0']!, '/qn', `PORT=${port}`]);
      expect(run.code).toBe(1603 & 0xff); // ERROR_INSTALL_FAILURE (the launch condition), as an 8-bit exit status
      expect(existsSync(wine.toUnix(`${INSTDIR}\\localsign.exe`))).toBe(false);
      expect(await scState()).toBe(null);
    } finally {
      await runWine(wine, ['reg', 'delete', nsisKey, '/f']);
    }
  }, 120_000);

  it('msiexec /i … /qn PLATFORM=embedded CODE=… PORT=…: files, the service as `service install` registers it, running, paired, /health, localsign on PATH', async () => {
    const run = await msiexec(['/i', msi['0.2.0']!, '/qn', 'PLATFORM=embedded', `CODE=${CODE}`, `PORT=${port}`]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    for (const f of ['localsign.exe', 'shawl.exe', 'LICENSES.txt', 'node_modules\\koffi\\package.json', 'node_modules\\@koromix\\koffi-win32-x64\\win32_x64\\koffi.node']) {
      expect(existsSync(wine.toUnix(`${INSTDIR}\\${f}`)), f).toBe(true);
    }
    expect(await installedVersions()).toEqual(['0.2.0.0']);
    expect(await scState()).toBe('RUNNING');
    const h = await until('/health', health);
    expect(h).toMatchObject({ ok: true, paired: true, tenant_id: 0, platform: 'embedded', version: '0.2.0' });
    expect(JSON.parse(readFileSync(data('service.json'), 'utf8'))).toEqual({ home: DATA, port });

    // The MSI's ServiceInstall row and the CLI's `sc create` run the same command. (wine's msi
    // writes the program's path unquoted; Windows Installer quotes it.)
    const image = /ImagePath\s+REG_\w+\s+(.*)/.exec((await runWine(wine, ['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Services\\localsign', '/v', 'ImagePath'])).stdout)![1]!.trim();
    const cli = argv(windowsBinPath({ exe: `${INSTDIR}\\localsign.exe`, logDir: `${DATA}\\logs`, serviceFile: `${DATA}\\service.json` }));
    expect(argv(image.replace(/^"?C:\\Program Files\\localsign\\shawl\.exe"? /, ''))).toEqual(cli.slice(1));

    // The enrolment file is gone once paired, and the code is in no file of the data dir.
    expect(existsSync(data('enrol'))).toBe(false);
    for (const f of walk(wine.toUnix(DATA))) expect(readFileSync(f, 'latin1'), f).not.toContain(CODE);
    expect(run.stdout + run.stderr).not.toContain(CODE);

    expect((await systemPath()).split(';')).toContain(`${INSTDIR}\\`);
    const version = await runWine(wine, ['cmd', '/c', 'localsign', 'version']);
    expect(version.stdout, version.stderr).toMatch(/^localsign 0\.2\.0 /);
  }, 240_000);

  it('a newer MSI over it (no properties): the older product replaced; port, pairing, wrapper keys and keys kept; the service runs again', async () => {
    const created = await exe(['wrapper:create', '--json']);
    expect(created.code, created.stderr).toBe(0);
    wrapper = JSON.parse(created.stdout) as { key: string; secret: string };
    for (const f of ['pairing.json', 'wrappers.json', 'soft-chip.json', 'embedded.json']) kept[f] = readFileSync(data(f), 'utf8');

    const run = await msiexec(['/i', msi['0.2.1']!, '/qn']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(await installedVersions()).toEqual(['0.2.1.0']);
    // Stopped by the older product's removal and started by the newer one: a second start in the
    // log (/health reports the executable's own version, the same build in both packages here).
    await until('the service started again', () => readFileSync(data('service.log'), 'utf8').match(/localsign listening on/g)?.length === 2, 90_000);
    expect(await until('/health after the upgrade', health, 90_000)).toMatchObject({ paired: true, platform: 'embedded' });
    expect(JSON.parse(readFileSync(data('service.json'), 'utf8'))).toEqual({ home: DATA, port });
    for (const [f, text] of Object.entries(kept)) expect(readFileSync(data(f), 'utf8'), f).toBe(text);
    const res = await authed(`http://127.0.0.1:${port}`, wrapper)('/v1/credentials');
    expect(res.status, await res.clone().text()).toBe(200);
    // One localsign entry on PATH: the older product's was removed with it.
    expect((await systemPath()).split(';').filter((p) => p === `${INSTDIR}\\`)).toHaveLength(1);
  }, 240_000);

  it('msiexec /x removes the service, the files and the PATH entry and keeps the data; PURGE=1 deletes it', async () => {
    const run = await msiexec(['/x', msi['0.2.1']!, '/qn']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(await scState()).toBe(null);
    expect(await health()).toBe(null);
    expect(existsSync(wine.toUnix(INSTDIR))).toBe(false);
    expect(await installedVersions()).toEqual([]);
    expect(await systemPath()).not.toContain('localsign');
    for (const [f, text] of Object.entries(kept)) expect(readFileSync(data(f), 'utf8'), f).toBe(text);

    const again = await msiexec(['/i', msi['0.2.1']!, '/qn']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await until('/health after reinstalling', health)).toMatchObject({ paired: true }); // the kept data
    const purge = await msiexec(['/x', msi['0.2.1']!, '/qn', 'PURGE=1']);
    expect(purge.code, purge.stdout + purge.stderr).toBe(0);
    expect(existsSync(wine.toUnix(DATA))).toBe(false);
    expect(existsSync(wine.toUnix(INSTDIR))).toBe(false);
    expect(await scState()).toBe(null);
  }, 300_000);
});
