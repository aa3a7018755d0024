import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, win32 } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertPrivateHome, ensureHome } from '../../../src/config/paths';
import { parseDacl, parseRights, readersOf } from '../../../src/config/sddl';
import {
  checkPrivateAcl,
  fixDirCommand,
  parseSavedAcls,
  parseWhoamiUser,
  protectArgs,
  saveAclArgs,
  WHOAMI_USER_ARGS,
  type RunTool,
} from '../../../src/config/windows-acl';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 7 §1: on Windows a file mode says nothing about who can read a file. Linux cannot run
 * icacls, and wine's icacls is a stub, so these tests pin the exact command lines and read ACLs
 * in the form Windows writes them (SDDL from `icacls /save`, UTF-16LE).
 */
const USER_SID = 'S-1-5-21-1004336348-1177238915-682003330-1001';
const HOME = 'C:\\Users\\ana\\AppData\\Roaming\\localsign';

/** A folder made at a drive root inherits this (BUILTIN\Users:(RX), Authenticated Users:(M)). */
const DRIVE_ROOT_CHILD = 'D:AI(A;OICIID;FA;;;BA)(A;OICIID;FA;;;SY)(A;OICIID;0x1200a9;;;BU)(A;ID;0x1301bf;;;AU)(A;OICIIOID;SDGXGWGR;;;AU)';
/** A folder in the user's profile: SYSTEM, Administrators and the user. */
const PROFILE_CHILD = `D:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;OICIID;FA;;;${USER_SID})`;
/** What protectArgs leaves: inheritance removed, the user alone. */
const PROTECTED = `D:PAI(A;OICI;FA;;;${USER_SID})`;

const utf16 = (text: string, bom = false) => Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

/**
 * whoami and icacls as Windows answers them, over a table of ACLs by Windows path. `wine: true`
 * answers as wine 8 does: whoami prints the bare name whatever the flags, icacls exits 0 and
 * writes nothing.
 */
function fakeWindows(acls: Record<string, string>, options: { wine?: boolean; icaclsStatus?: number } = {}) {
  const calls: string[][] = [];
  const run: RunTool = (file, args) => {
    calls.push([file, ...args]);
    if (file === 'whoami') return { status: 0, stdout: options.wine ? 'VM\\root\r\n' : `"desktop-1\\ana","${USER_SID}"\r\n`, stderr: '' };
    if (options.wine) return { status: 0, stdout: '', stderr: '' };
    if (args[1] === '/save') {
      const target = args[0]!;
      const entries = target.endsWith('\\*')
        ? Object.entries(acls).filter(([p]) => win32.dirname(p) === target.slice(0, -2))
        : Object.entries(acls).filter(([p]) => p === target);
      if (entries.length === 0) return { status: 2, stdout: '', stderr: `${target}: The system cannot find the file specified.\r\n` };
      writeFileSync(args[2]!, utf16(entries.map(([p, sddl]) => `${win32.basename(p)}\r\n${sddl}\r\n`).join('')));
      return { status: 0, stdout: '', stderr: '' };
    }
    if (options.icaclsStatus) return { status: options.icaclsStatus, stdout: '', stderr: `${args[0]}: Access is denied.\r\nSuccessfully processed 0 files; Failed processing 1 files\r\n` };
    return { status: 0, stdout: `processed file: ${args[0]}\r\nSuccessfully processed 1 files; Failed processing 0 files\r\n`, stderr: '' };
  };
  return { run, calls };
}

describe('icacls and whoami command lines', () => {
  it('protects a dir: inherited entries removed, full control for the user by SID, inherited by files and folders', () => {
    expect(protectArgs(HOME, `*${USER_SID}`)).toEqual([HOME, '/inheritance:r', '/grant:r', `*${USER_SID}:(OI)(CI)F`]);
  });

  it('saves ACLs as SDDL, continuing past errors, quietly; asks whoami for the SID as CSV', () => {
    expect(saveAclArgs(`${HOME}\\*`, 'C:\\t\\acl.txt')).toEqual([`${HOME}\\*`, '/save', 'C:\\t\\acl.txt', '/c', '/q']);
    expect(WHOAMI_USER_ARGS).toEqual(['/user', '/fo', 'csv', '/nh']);
  });

  it('quotes the fix so cmd and PowerShell both take it, removing explicit grants to others', () => {
    expect(fixDirCommand(HOME, `*${USER_SID}`, [])).toBe(`icacls "${HOME}" /inheritance:r /grant:r "*${USER_SID}:(OI)(CI)F"`);
    expect(fixDirCommand(HOME, `*${USER_SID}`, ['S-1-1-0', 'S-1-5-32-545'])).toBe(
      `icacls "${HOME}" /inheritance:r /grant:r "*${USER_SID}:(OI)(CI)F" /remove:g *S-1-1-0 *S-1-5-32-545`,
    );
  });

  it('reads the user from whoami /user /fo csv /nh, and a bare name (wine ignores /user) as no SID', () => {
    expect(parseWhoamiUser(`"desktop-1\\ana","${USER_SID}"\r\n`)).toEqual({ name: 'desktop-1\\ana', sid: USER_SID });
    expect(parseWhoamiUser('VM\\root\r\n')).toEqual({ name: 'VM\\root', sid: null });
    expect(parseWhoamiUser('')).toBeNull();
  });

  it('reads an icacls /save file: UTF-16LE with or without BOM, a name line then its SDDL', () => {
    const text = `localsign\r\n${PROTECTED}\r\npairing.json\r\nD:AI(A;ID;FA;;;${USER_SID})\r\n`;
    const expected = [
      { name: 'localsign', sddl: PROTECTED },
      { name: 'pairing.json', sddl: `D:AI(A;ID;FA;;;${USER_SID})` },
    ];
    expect(parseSavedAcls(utf16(text))).toEqual(expected);
    expect(parseSavedAcls(utf16(text, true))).toEqual(expected);
  });
});

describe('SDDL: who may read', () => {
  it('reads rights as hex, as file-right names and as per-bit codes; an unknown code counts as every right', () => {
    expect(parseRights('FA')).toBe(0x1f01ff);
    expect(parseRights('0x1200a9')).toBe(0x1200a9);
    expect(parseRights('SDGXGWGR')).toBe((0x10000 | 0x20000000 | 0x40000000 | 0x80000000) >>> 0);
    expect(parseRights('ZZ')).toBe(0xffffffff);
  });

  it('counts allow entries that read data, take ownership or rewrite the ACL; not deny, read-control or attributes', () => {
    const dacl = parseDacl(
      'D:PAI(D;OICI;FA;;;WD)(A;;RC;;;AN)(A;;0x100080;;;IU)(A;;WD;;;BG)(A;OICIIO;GR;;;AU)(A;;0x1;;;S-1-5-21-9-9-9-1002)S:(AU;SA;FA;;;WD)',
    );
    expect(readersOf(dacl)).toEqual(['S-1-5-32-546', 'S-1-5-11', 'S-1-5-21-9-9-9-1002']);
    expect(readersOf(parseDacl('D:NO_ACCESS_CONTROL'))).toEqual(['S-1-1-0']);
    expect(readersOf(parseDacl('O:BAG:SY'))).toEqual(['S-1-1-0']); // no DACL at all
  });

  it('reads past a conditional entry', () => {
    const dacl = parseDacl(`D:(XA;;FR;;;WD;(@User.Project Any_of {1, 2}))(A;;FA;;;${USER_SID})`);
    expect(dacl.aces.map((a) => [a.type, a.sid])).toEqual([
      ['XA', 'S-1-1-0'],
      ['A', USER_SID],
    ]);
  });
});

describe('checkPrivateAcl', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (tmp = makeTmpHome()));
  afterEach(() => tmp.cleanup());
  const check = (acls: Record<string, string>, options: { wine?: boolean } = {}) => {
    const win = fakeWindows(acls, options);
    return { verdict: checkPrivateAcl(HOME, ['pairing.json', 'wrappers.json'], { run: win.run, tmpDir: tmp.home }), calls: win.calls };
  };

  it('passes a dir protected by protectArgs, and one in the profile (SYSTEM, Administrators, the user)', () => {
    expect(check({ [HOME]: PROTECTED, [`${HOME}\\pairing.json`]: `D:AI(A;ID;FA;;;${USER_SID})` }).verdict).toEqual({ kind: 'private' });
    expect(check({ [HOME]: PROFILE_CHILD }).verdict).toEqual({ kind: 'private' });
  });

  it('refuses a dir that inherits Users and Authenticated Users (a folder at a drive root)', () => {
    const { verdict, calls } = check({ [HOME]: DRIVE_ROOT_CHILD });
    expect(verdict).toEqual({
      kind: 'exposed',
      path: HOME,
      readers: 'Users (S-1-5-32-545), Authenticated Users (S-1-5-11)',
      fix: `icacls "${HOME}" /inheritance:r /grant:r "*${USER_SID}:(OI)(CI)F"`,
    });
    expect(calls.map((c) => c.slice(0, 3))).toEqual([['whoami', ...WHOAMI_USER_ARGS.slice(0, 2)], ['icacls', HOME, '/save']]);
  });

  it('names explicit grants to others in the fix, since removing inheritance leaves them', () => {
    const { verdict } = check({ [HOME]: `D:PAI(A;OICI;FA;;;${USER_SID})(A;OICI;0x1200a9;;;WD)` });
    expect(verdict).toMatchObject({ kind: 'exposed', readers: 'Everyone (S-1-1-0)', fix: `icacls "${HOME}" /inheritance:r /grant:r "*${USER_SID}:(OI)(CI)F" /remove:g *S-1-1-0` });
  });

  it('refuses a secret file with a grant of its own, and leaves other files alone', () => {
    const { verdict } = check({
      [HOME]: PROTECTED,
      [`${HOME}\\service.log`]: `D:(A;;FR;;;BU)`,
      [`${HOME}\\wrappers.json`]: `D:AI(A;;FR;;;BU)(A;ID;FA;;;${USER_SID})`,
    });
    expect(verdict).toEqual({ kind: 'exposed', path: `${HOME}\\wrappers.json`, readers: 'Users (S-1-5-32-545)', fix: `icacls "${HOME}\\wrappers.json" /reset` });
  });

  it('under wine (stub icacls, whoami without /user) says it could not check', () => {
    expect(check({ [HOME]: DRIVE_ROOT_CHILD }, { wine: true }).verdict).toEqual({ kind: 'unverifiable', reason: 'whoami /user printed no SID for the current user' });
  });

  it('says so when icacls saves nothing, and leaves no temp file behind', () => {
    const win = fakeWindows({});
    expect(checkPrivateAcl(HOME, [], { run: win.run, tmpDir: tmp.home })).toEqual({
      kind: 'unverifiable',
      reason: `icacls /save wrote no ACL for ${HOME} (wine's icacls is a stub that saves nothing)`,
    });
    expect(readdirSync(tmp.home)).toEqual([]);
  });
});

describe('the config dir on Windows (ensureHome, assertPrivateHome)', () => {
  let tmp: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (tmp = makeTmpHome()));
  afterEach(() => tmp.cleanup());

  it('gives a new dir an ACL for the user alone before anything is created in it; an existing dir is left alone', () => {
    const home = join(tmp.home, 'h');
    const win = fakeWindows({});
    const seen: boolean[] = [];
    const run: RunTool = (file, args) => {
      if (file === 'icacls') seen.push(existsSync(join(home, 'results')));
      return win.run(file, args);
    };
    ensureHome(home, { platform: 'win32', acl: { run } });
    expect(win.calls).toEqual([
      ['whoami', '/user', '/fo', 'csv', '/nh'],
      ['icacls', home, '/inheritance:r', '/grant:r', `*${USER_SID}:(OI)(CI)F`],
    ]);
    expect(seen).toEqual([false]);
    expect(statSync(join(home, 'results')).isDirectory()).toBe(true);
    ensureHome(home, { platform: 'win32', acl: { run } });
    expect(win.calls).toHaveLength(2);
  });

  it('stops when icacls cannot set the ACL, naming the dir and the command', () => {
    const home = join(tmp.home, 'h');
    const win = fakeWindows({}, { icaclsStatus: 5 });
    expect(() => ensureHome(home, { platform: 'win32', acl: { run: win.run } })).toThrow(
      `could not make ${home} private to desktop-1\\ana (icacls exited 5: ${home}: Access is denied.); run: icacls "${home}" "/inheritance:r" "/grant:r" "*${USER_SID}:(OI)(CI)F"`,
    );
  });

  it('refuses to start when others can read the dir, naming the path and the fix', () => {
    mkdirSync(join(tmp.home, 'h'));
    const home = join(tmp.home, 'h');
    const win = fakeWindows({ [home]: DRIVE_ROOT_CHILD });
    expect(() => assertPrivateHome(home, { platform: 'win32', acl: { run: win.run, tmpDir: tmp.home } })).toThrow(
      `${home} is accessible by other users (its ACL lets Users (S-1-5-32-545), Authenticated Users (S-1-5-11) read it); fix it with: icacls "${home}" /inheritance:r /grant:r "*${USER_SID}:(OI)(CI)F"`,
    );
  });

  it('starts with a warning where the ACL cannot be read (wine)', () => {
    const home = join(tmp.home, 'h');
    mkdirSync(home);
    const win = fakeWindows({ [home]: DRIVE_ROOT_CHILD }, { wine: true });
    expect(assertPrivateHome(home, { platform: 'win32', acl: { run: win.run, tmpDir: tmp.home } })).toEqual([
      `could not check who can read ${home}: whoami /user printed no SID for the current user`,
    ]);
  });
});
