import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, posix, win32 } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setOwnerArgs } from '../../../src/config/windows-acl';
import { windowsToolPath } from '../../../src/config/windows-tools';
import type { CommandResult, Runner } from '../../../src/install/run-command';
import { resetChildrenArgs, secureServiceDataDir, serviceDirAclArgs } from '../../../src/install/windows-data-dir';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 15: a %ProgramData%\localsign a standard user made before the install kept that user as
 * its owner. Linux runs neither icacls nor PowerShell, so icacls and Get-Acl are played over one
 * security descriptor (owner, DACL) the way Windows changes it; the dir itself is a temp dir, for
 * the link checks.
 */
const ROOT = 'C:\\WINDOWS';
const ICACLS = windowsToolPath('icacls', ROOT);
const POWERSHELL = windowsToolPath('powershell', ROOT);
const USER = 'S-1-5-21-1004336348-1177238915-682003330-1002';
/** What a folder a user creates in %ProgramData% inherits (CREATOR OWNER becomes the user). */
const INHERITED = `(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;ID;FA;;;${USER})(A;OICIIOID;GA;;;CO)(A;OICIID;0x1200a9;;;BU)(A;CIID;DCLCRPCR;;;BU)`;

interface Descriptor {
  owner: string;
  /** ACE strings, "(A;…)". */
  aces: string[];
  protected: boolean;
}

/** icacls and PowerShell over `sd`; `sticky`: setowner does not take (a user who took the dir back). */
function fakeWindows(home: string, sd: Descriptor, options: { sticky?: boolean; noPowerShell?: boolean } = {}) {
  const calls: string[][] = [];
  const sddl = () => `D:${sd.protected ? 'PAI' : 'AI'}${sd.aces.join('')}`;
  const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
  const run: Runner = (cmd, args) => {
    calls.push([cmd, ...args]);
    if (cmd === POWERSHELL) {
      if (options.noPowerShell) return { code: null, stdout: '', stderr: `${cmd}: command not found` };
      const alias = sd.owner === 'S-1-5-32-544' ? 'BA' : sd.owner === 'S-1-5-18' ? 'SY' : sd.owner;
      return ok(`O:${alias}G:${alias}${sddl()}\r\n`);
    }
    if (cmd !== ICACLS) return { code: null, stdout: '', stderr: `${cmd}: command not found` };
    if (args[0] === home && args[1] === '/inheritance:r') {
      // Inherited entries go; the grants replace those of the same SIDs; others' explicit ones stay.
      const granted = args.slice(3).map((g) => g.slice(1, g.indexOf(':')));
      const alias = (s: string) => (s === 'S-1-5-18' ? 'SY' : s === 'S-1-5-32-544' ? 'BA' : s);
      sd.aces = [...granted.map((s) => `(A;OICI;FA;;;${alias(s)})`), ...sd.aces.filter((a) => !/;[A-Z]*ID;/.test(a) && !granted.some((s) => a.endsWith(`;${alias(s)})`)))];
      sd.protected = true;
      return ok();
    }
    if (args[0] === home && args[1] === '/save') {
      writeFileSync(args[2]!, Buffer.from(`\uFEFF${win32.basename(home)}\r\n${sddl()}\r\n`, 'utf16le'));
      return ok();
    }
    if (args[0] === home && args[1] === '/remove:g') {
      const gone = args.slice(2).map((s) => s.slice(1));
      sd.aces = sd.aces.filter((a) => !gone.some((s) => a.endsWith(`;${s})`)));
      return ok();
    }
    if (args.join(' ') === setOwnerArgs(home).join(' ')) {
      if (!options.sticky) sd.owner = 'S-1-5-32-544';
      return ok();
    }
    if (args.join(' ') === resetChildrenArgs(home, posix.join).join(' ')) return ok();
    return { code: 87, stdout: '', stderr: 'The parameter is incorrect.\r\n' };
  };
  return { run, calls };
}

describe('the service data dir at install (secureServiceDataDir)', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  let home: string;
  beforeEach(() => {
    tmp = makeTmpHome();
    home = join(tmp.home, 'localsign');
    mkdirSync(home);
  });
  afterEach(() => tmp.cleanup());
  const deps = (run: Runner) => ({ run, systemRoot: ROOT, tmpDir: tmp.home, join: posix.join });

  it('an upgrade (Administrators own it): the ACL set, the owner read, nothing walked', () => {
    const win = fakeWindows(home, { owner: 'S-1-5-32-544', aces: ['(A;OICI;FA;;;SY)', '(A;OICI;FA;;;BA)'], protected: true });
    expect(secureServiceDataDir(home, deps(win.run))).toEqual({ reowned: false });
    expect(win.calls.map((c) => c.slice(0, 3))).toEqual([
      [ICACLS, ...serviceDirAclArgs(home).slice(0, 2)],
      [POWERSHELL, '-NoLogo', '-NoProfile'],
    ]);
  });

  it("a dir a user made before the install: the user's own grant removed, Administrators its owner, all inside reset, read back", () => {
    const sd: Descriptor = { owner: USER, aces: [`(A;OICI;FA;;;${USER})`, ...INHERITED.match(/\([^)]*\)/g)!], protected: false };
    const win = fakeWindows(home, sd);
    expect(secureServiceDataDir(home, deps(win.run))).toEqual({ reowned: true });
    expect(win.calls.filter((c) => c[0] === ICACLS && c[2] !== '/save').map((c) => c.slice(1))).toEqual([
      serviceDirAclArgs(home),
      [home, '/remove:g', `*${USER}`],
      [home, '/setowner', '*S-1-5-32-544', '/T', '/C', '/L', '/Q'],
      [`${home}/*`, '/reset', '/T', '/C', '/L', '/Q'],
    ]);
    expect(sd).toEqual({ owner: 'S-1-5-32-544', aces: ['(A;OICI;FA;;;SY)', '(A;OICI;FA;;;BA)'], protected: true });
  });

  it('refuses, naming the dir, the owner and the fix, when the dir does not become Administrators\'', () => {
    const win = fakeWindows(home, { owner: USER, aces: INHERITED.match(/\([^)]*\)/g)!, protected: false }, { sticky: true });
    expect(() => secureServiceDataDir(home, deps(win.run))).toThrow(
      `${home} is owned by ${USER}, not by SYSTEM or Administrators, and could not be given to Administrators (its owner is now ${USER}): delete it (rmdir /s "${home}", after saving what you need from it) and install again`,
    );
  });

  it('without an answer from PowerShell (wine): the ACL as before, nothing else', () => {
    const win = fakeWindows(home, { owner: USER, aces: [], protected: false }, { noPowerShell: true });
    expect(secureServiceDataDir(home, deps(win.run))).toEqual({ reowned: false });
    expect(win.calls.map((c) => c[0])).toEqual([ICACLS, POWERSHELL]);
  });

  it('refuses a junction or link at the dir or at its logs folder before any icacls runs', () => {
    const win = fakeWindows(home, { owner: 'S-1-5-32-544', aces: [], protected: true });
    symlinkSync(tmp.home, join(home, 'logs'));
    expect(() => secureServiceDataDir(home, deps(win.run))).toThrow(`${join(home, 'logs')} is a junction or symbolic link; the service's data dir must be a real folder`);
    const linked = join(tmp.home, 'linked');
    symlinkSync(home, linked);
    expect(() => secureServiceDataDir(linked, deps(win.run))).toThrow(`${linked} is a junction or symbolic link`);
    expect(win.calls).toEqual([]);
  });

  it('every command is a full path under %SystemRoot%, never a bare name', () => {
    const win = fakeWindows(home, { owner: USER, aces: INHERITED.match(/\([^)]*\)/g)!, protected: false });
    secureServiceDataDir(home, deps(win.run));
    expect(new Set(win.calls.map((c) => c[0]))).toEqual(new Set([ICACLS, POWERSHELL]));
    for (const [cmd] of win.calls) expect(win32.isAbsolute(cmd!) && cmd!.startsWith(`${ROOT}\\System32\\`), cmd).toBe(true);
  });
});
