import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, win32 } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/config';
import type { EnvSnapshot } from '../../../src/config/env';
import { readEnv } from '../../../src/config/env';
import { adoptHomeOwner, type Identity } from '../../../src/config/home-owner';
import { parseServiceFile, readServiceFile, serviceFilePath, writeServiceFile } from '../../../src/config/service-file';
import { serveFilePath } from '../../../src/cli/serve-file';
import { tempDir } from '../../helpers/temp-dir';

const dir = tempDir('localsign-svcfile-');
const file = join(dir, 'etc', 'service.json');
const env = (settings: EnvSnapshot['settings'] = {}, serviceFile: string | null = file): EnvSnapshot => ({
  userHome: '/home/u', settings, readVar: () => undefined, isTty: false, noColor: false, proxy: { httpProxy: null, httpsProxy: null, noProxy: null }, serviceFile,
});

/** Issue 9: one config dir for the CLI and the installed service. */
describe('the installed service file', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lives in /etc/localsign on POSIX and in %ProgramData%\\localsign on Windows; LOCALSIGN_SERVICE_FILE moves or disables it', () => {
    expect(serviceFilePath('linux', undefined)).toBe('/etc/localsign/service.json');
    expect(serviceFilePath('darwin', undefined)).toBe('/etc/localsign/service.json');
    expect(serviceFilePath('win32', 'C:\\ProgramData')).toBe('C:\\ProgramData\\localsign\\service.json');
    expect(readEnv({ LOCALSIGN_SERVICE_FILE: '/x/s.json' }).serviceFile).toBe('/x/s.json');
    expect(readEnv({ LOCALSIGN_SERVICE_FILE: '' }).serviceFile).toBe(null);
  });

  it('is not the file a running serve writes in its config dir: on Windows both are in %ProgramData%\\localsign', () => {
    // Both were service.json: serve replaced the installed service's file with {pid, url}, and the
    // CLI then refused to start ("home" must be an absolute path) under the Windows installer.
    const programData = 'C:\\ProgramData';
    const installed = serviceFilePath('win32', programData)!;
    const home = win32.dirname(installed);
    expect(win32.basename(serveFilePath(home))).not.toBe(win32.basename(installed));
  });

  it('gives the home and port when neither --home nor LOCALSIGN_HOME is given; flags and env still win', () => {
    expect(buildConfig(env())).toMatchObject({ home: '/home/u/.localsign', port: 8300, serviceFile: null }); // none installed
    writeServiceFile(file, { home: '/var/lib/localsign', port: 8311 });
    expect(buildConfig(env())).toMatchObject({ home: '/var/lib/localsign', port: 8311, serviceFile: file });
    expect(buildConfig(env({ port: '9000' }))).toMatchObject({ home: '/var/lib/localsign', port: 9000 });
    expect(buildConfig(env(), { port: '9100' })).toMatchObject({ port: 9100 });
    expect(buildConfig(env({ home: '/srv/mine' }))).toMatchObject({ home: '/srv/mine', port: 8300, serviceFile: null });
    expect(buildConfig(env(), { home: '/srv/flag' })).toMatchObject({ home: '/srv/flag', port: 8300, serviceFile: null });
    expect(buildConfig(env({}, null))).toMatchObject({ home: '/home/u/.localsign', serviceFile: null });
  });

  it('a broken file is one line naming it, never a silent fallback to another dir', () => {
    mkdirSync(join(dir, 'bad'), { recursive: true });
    writeFileSync(join(dir, 'bad', 'service.json'), '{"home": "relative/dir"}');
    expect(() => buildConfig(env({}, join(dir, 'bad', 'service.json')))).toThrow(`${join(dir, 'bad', 'service.json')} is not a valid localsign service file ("home" must be an absolute path); fix it or remove it, or pass --home`);
    expect(() => parseServiceFile('/f', 'nope')).toThrow('/f is not a valid localsign service file (not JSON)');
    expect(() => parseServiceFile('/f', '{"home":"/a","port":70000}')).toThrow('"port" must be an integer from 1 to 65535');
    expect(parseServiceFile('/f', '{"home":"C:\\\\ProgramData\\\\localsign","port":8300}')).toEqual({ home: 'C:\\ProgramData\\localsign', port: 8300 });
    expect(readServiceFile(join(dir, 'none.json'))).toBe(null);
  });
});

describe('a root CLI takes the config dir owner', () => {
  const calls: string[] = [];
  const identity = (uid: number): Identity => ({
    getuid: () => uid,
    setgroups: (g) => calls.push(`setgroups ${g.join(',')}`),
    setgid: (g) => calls.push(`setgid ${g}`),
    setuid: (u) => calls.push(`setuid ${u}`),
  });
  const owned = tempDir('localsign-owned-');
  afterAll(() => rmSync(owned, { recursive: true, force: true }));

  it("groups, gid, then uid of the dir's owner; nothing when not root, or the dir is root's, or absent", async () => {
    const { chownSync } = await import('node:fs');
    if (process.getuid?.() === 0) {
      chownSync(owned, 4321, 8765);
      calls.length = 0;
      expect(adoptHomeOwner(owned, identity(0))).toBe(4321);
      expect(calls).toEqual(['setgroups 8765', 'setgid 8765', 'setuid 4321']);
      chownSync(owned, 0, 0);
    }
    calls.length = 0;
    expect(adoptHomeOwner(owned, identity(1000))).toBe(null);
    expect(adoptHomeOwner(join(owned, 'absent'), identity(0))).toBe(null);
    if (process.getuid?.() === 0) expect(adoptHomeOwner(owned, identity(0))).toBe(null);
    expect(calls).toEqual([]);
  });
});
