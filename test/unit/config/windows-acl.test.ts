import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, win32 } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertPrivateHome, ensureHome } from '../../../src/config/paths';
import { parseDacl, parseOwner, parseRights, readersOf } from '../../../src/config/sddl';
import {
  checkPrivateAcl,
  fixDirCommand,
  ownerQueryArgs,
  parseOwnerLines,
  parseSavedAcls,
  parseWhoamiUser,
  powershellQuote,
  protectArgs,
  saveAclArgs,
  WHOAMI_USER_ARGS,
  type RunTool,
} from '../../../src/config/windows-acl';
import { windowsToolPath } from '../../../src/config/windows-tools';
import { makeTmpHome } from '../../helpers/tmp-home';

/**
 * Issue 7 §1: on Windows a file mode says nothing about who can read a file. Linux cannot run
 * icacls, and wine's icacls is a stub, so these tests pin the exact command lines and read ACLs
 * in the form Windows writes them (SDDL from `icacls /save`, UTF-16LE).
 */
const USER_SID = 'S-1-5-21-1004336348-1177238915-682003330-1001';
const PROFILE = 'C:\\Users\\ana';
const HOME = 'C:\\Users\\ana\\AppData\\Roaming\\localsign';

/** A folder made at a drive root inherits this (BUILTIN\Users:(RX), Authenticated Users:(M)). */
const DRIVE_ROOT_CHILD = 'D:AI(A;OICIID;FA;;;BA)(A;OICIID;FA;;;SY)(A;OICIID;0x1200a9;;;BU)(A;ID;0x1301bf;;;AU)(A;OICIIOID;SDGXGWGR;;;AU)';
/** A folder in the user's profile: SYSTEM, Administrators and the user. */
const PROFILE_CHILD = `D:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;OICIID;FA;;;${USER_SID})`;
/** What protectArgs leaves: inheritance removed, the user alone. */
const PROTECTED = `D:PAI(A;OICI;FA;;;${USER_SID})`;

const utf16 = (text: string, bom = false) => Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);

/** Where the fakes expect the tools: %SystemRoot% as the tests give it. */
const SYSTEM_ROOT = 'C:\\WINDOWS';
const WHOAMI = 'C:\\WINDOWS\\System32\\whoami.exe';
const ICACLS = 'C:\\WINDOWS\\System32\\icacls.exe';
const POWERSHELL = 'C:\\WINDOWS\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';

/** The paths a PowerShell script of ownerQueryArgs names, read back from its -EncodedCommand. */
function scriptPaths(args: readonly string[]): string[] {
  const script = Buffer.from(args[args.indexOf('-EncodedCommand') + 1]!, 'base64').toString('utf16le');
  const list = /@\((.*?)\)\)/.exec(script)![1]!;
  return [...list.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"));
}

/**
 * whoami, icacls and PowerShell as Windows answers them, over a table of security descriptors by
 * Windows path: icacls /save writes the DACL part only (as it does), Get-Acl's .Sddl the whole
 * ("O:…G:…D:…"; an entry with no "O:" is owned by the user). Each tool answers only at its full
 * path: a call by bare name finds nothing, as on a machine where the current directory is empty.
 * `wine: true` answers as wine 8 does: whoami prints the bare name whatever the flags, icacls
 * exits 0 and writes nothing, no PowerShell.
 */
function fakeWindows(
  acls: Record<string, string>,
  options: { wine?: boolean; icaclsStatus?: number; user?: { name: string; sid: string }; systemRoot?: string } = {},
) {
  const calls: string[][] = [];
  const root = options.systemRoot ?? SYSTEM_ROOT;
  const user = options.user ?? { name: 'desktop-1\\ana', sid: USER_SID };
  const dacl = (sd: string) => sd.slice(sd.indexOf('D:'));
  const run: RunTool = (file, args) => {
    calls.push([file, ...args]);
    if (file === windowsToolPath('whoami', root)) return { status: 0, stdout: options.wine ? 'VM\\root\r\n' : `"${user.name}","${user.sid}"\r\n`, stderr: '' };
    if (file === windowsToolPath('powershell', root) && !options.wine) {
      const lines = scriptPaths(args).map((p) => (acls[p] === undefined ? '-' : acls[p]!.startsWith('O:') ? acls[p]! : `O:${user.sid}G:${user.sid}${acls[p]}`));
      return { status: 0, stdout: lines.map((l) => `${l}\r\n`).join(''), stderr: '' };
    }
    if (file !== windowsToolPath('icacls', root)) return { status: null, stdout: '', stderr: '', error: Object.assign(new Error(`spawnSync ${file} ENOENT`), { code: 'ENOENT' }) };
    if (options.wine) return { status: 0, stdout: '', stderr: '' };
    if (args[1] === '/save') {
      const target = args[0]!;
      const entries = target.endsWith('\\*')
        ? Object.entries(acls).filter(([p]) => win32.dirname(p) === target.slice(0, -2))
        : Object.entries(acls).filter(([p]) => p === target);
      if (entries.length === 0) return { status: 2, stdout: '', stderr: `${target}: The system cannot find the file specified.\r\n` };
      writeFileSync(args[2]!, utf16(entries.map(([p, sd]) => `${win32.basename(p)}\r\n${dacl(sd)}\r\n`).join('')));
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
    return { verdict: checkPrivateAcl(HOME, ['pairing.json', 'wrappers.json'], { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT, userProfile: PROFILE }), calls: win.calls };
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
    expect(calls.map((c) => c.slice(0, 3))).toEqual([[WHOAMI, ...WHOAMI_USER_ARGS.slice(0, 2)], [ICACLS, HOME, '/save']]);
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
    expect(checkPrivateAcl(HOME, [], { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT })).toEqual({
      kind: 'unverifiable',
      reason: `icacls /save wrote no ACL for ${HOME} (wine's icacls is a stub that saves nothing)`,
    });
    expect(readdirSync(tmp.home)).toEqual([]);
  });
});

/** A standard user's SID: the one who made %ProgramData%\\localsign before the install (issue 15). */
const OTHER_SID = 'S-1-5-21-1004336348-1177238915-682003330-1002';
const DATA = 'C:\\ProgramData\\localsign';
const SYSTEM_USER = { name: 'nt authority\\system', sid: 'S-1-5-18' };
/** What the installer's `icacls /inheritance:r /grant:r` leaves: SYSTEM and Administrators alone. */
const SERVICE_DACL = 'D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)';

describe('system tools by full path (issue 15: a whoami.exe in the current directory ran elevated)', () => {
  it('%SystemRoot%\\System32\\<tool>.exe; C:\\Windows when %SystemRoot% is missing or not a drive path', () => {
    expect(windowsToolPath('whoami', 'C:\\WINDOWS')).toBe(WHOAMI);
    expect(windowsToolPath('icacls', 'D:\\Win')).toBe('D:\\Win\\System32\\icacls.exe');
    expect(windowsToolPath('sc', 'C:\\windows')).toBe('C:\\windows\\System32\\sc.exe');
    expect(windowsToolPath('powershell', 'C:\\WINDOWS')).toBe(POWERSHELL);
    expect(windowsToolPath('whoami', undefined)).toBe('C:\\Windows\\System32\\whoami.exe');
    expect(windowsToolPath('whoami', 'Windows')).toBe('C:\\Windows\\System32\\whoami.exe');
    for (const tool of ['whoami', 'icacls', 'sc', 'powershell'] as const) expect(win32.isAbsolute(windowsToolPath(tool)), tool).toBe(true);
  });

  it('every tool the ACL check runs is named by an absolute path under %SystemRoot%', () => {
    const tmp = makeTmpHome();
    try {
      const win = fakeWindows({ [DATA]: SERVICE_DACL }, { user: SYSTEM_USER });
      checkPrivateAcl(DATA, ['pairing.json'], { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT, userProfile: 'C:\\WINDOWS\\system32\\config\\systemprofile' });
      expect(win.calls.map((c) => c[0])).toEqual([WHOAMI, ICACLS, ICACLS, POWERSHELL]);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('the owner (PowerShell Get-Acl; icacls prints none)', () => {
  it('reads the owner of an SDDL as Get-Acl writes it: a SID or an alias, before G: and D:', () => {
    expect(parseOwner(`O:${OTHER_SID}G:S-1-5-21-1004336348-1177238915-682003330-513D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)`)).toBe(OTHER_SID);
    expect(parseOwner('O:BAG:SYD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)')).toBe('S-1-5-32-544');
    expect(parseOwner('O:SYG:SYD:AI(A;ID;FA;;;SY)')).toBe('S-1-5-18');
    expect(parseOwner('D:PAI(A;OICI;FA;;;SY)')).toBeNull(); // icacls /save's line: no owner in it
    expect(parseOwner('')).toBeNull();
  });

  it('asks PowerShell with an encoded script (no path on a command line), each path a literal', () => {
    const args = ownerQueryArgs([DATA, "C:\\Users\\o'brien\\[x] \u2019 dir"]);
    expect(args.slice(0, 4)).toEqual(['-NoLogo', '-NoProfile', '-NonInteractive', '-EncodedCommand']);
    const script = Buffer.from(args[4]!, 'base64').toString('utf16le');
    expect(script).toBe(
      `foreach ($p in @('C:\\ProgramData\\localsign','C:\\Users\\o''brien\\[x] \u2019\u2019 dir')) { try { if (Test-Path -LiteralPath $p) { (Get-Acl -LiteralPath $p).Sddl } else { '-' } } catch { '?' } }`,
    );
    expect(powershellQuote("a'b")).toBe("'a''b'");
  });

  it('reads its answer: one SDDL per path, "-" for one that does not exist; anything else (an error, wine) is no answer', () => {
    const out = `O:${OTHER_SID}G:${OTHER_SID}D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)\r\n-\r\nO:BAG:SYD:AI(A;ID;FA;;;SY)\r\n`;
    expect(parseOwnerLines(out, 3)).toEqual([OTHER_SID, null, 'S-1-5-32-544']);
    expect(parseOwnerLines(out, 2)).toBeNull();
    expect(parseOwnerLines(`O:BAG:SYD:AI(A;ID;FA;;;SY)\r\n?\r\n`, 2)).toBeNull();
    expect(parseOwnerLines('', 1)).toBeNull();
  });

  describe('at start', () => {
    let tmp: ReturnType<typeof makeTmpHome>;
    beforeEach(() => (tmp = makeTmpHome()));
    afterEach(() => tmp.cleanup());
    const asService = (acls: Record<string, string>, options: { wine?: boolean } = {}) => {
      const win = fakeWindows(acls, { user: SYSTEM_USER, ...options });
      const deps = { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT, userProfile: 'C:\\WINDOWS\\system32\\config\\systemprofile' };
      return { verdict: checkPrivateAcl(DATA, ['pairing.json', 'wrappers.json'], deps), calls: win.calls };
    };

    it('the service refuses a data dir a standard user owns, even with an ACL of SYSTEM and Administrators alone', () => {
      expect(asService({ [DATA]: `O:${OTHER_SID}G:${OTHER_SID}${SERVICE_DACL}` }).verdict).toEqual({
        kind: 'exposed',
        path: DATA,
        owner: OTHER_SID,
        readers: `its owner ${OTHER_SID}, who can always change its ACL,`,
        fix: `icacls "${DATA}" /setowner *S-1-5-32-544 /T /C /L (as an administrator; reinstalling the service does it too)`,
      });
    });

    it('and a secret file in it that a user owns', () => {
      const { verdict } = asService({
        [DATA]: `O:BAG:SY${SERVICE_DACL}`,
        [`${DATA}\\wrappers.json`]: `O:${OTHER_SID}G:${OTHER_SID}D:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)`,
      });
      expect(verdict).toMatchObject({ kind: 'exposed', path: `${DATA}\\wrappers.json`, owner: OTHER_SID });
    });

    it('passes a dir and files owned by Administrators or SYSTEM; missing secret files are no concern', () => {
      expect(asService({ [DATA]: `O:BAG:SY${SERVICE_DACL}`, [`${DATA}\\pairing.json`]: 'O:SYG:SYD:AI(A;ID;FA;;;SY)(A;ID;FA;;;BA)' }).verdict).toEqual({ kind: 'private' });
    });

    it("a user's own dir outside the profile may be the user's; inside the profile no PowerShell is started", () => {
      const win = fakeWindows({ 'D:\\data\\localsign': `O:${USER_SID}G:${USER_SID}D:PAI(A;OICI;FA;;;${USER_SID})` });
      expect(checkPrivateAcl('D:\\data\\localsign', [], { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT, userProfile: PROFILE })).toEqual({ kind: 'private' });
      expect(win.calls.map((c) => c[0])).toContain(POWERSHELL);
      const inProfile = fakeWindows({ [HOME]: `O:${OTHER_SID}G:${OTHER_SID}${PROTECTED}` });
      expect(checkPrivateAcl(HOME, [], { run: inProfile.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT, userProfile: 'c:\\users\\ANA' })).toEqual({ kind: 'private' });
      expect(inProfile.calls.map((c) => c[0])).not.toContain(POWERSHELL);
    });

    it('says it could not check when PowerShell gives no owner, as under wine', () => {
      const win = fakeWindows({ [DATA]: SERVICE_DACL }, { user: SYSTEM_USER });
      const run: RunTool = (file, args) => (file === POWERSHELL ? { status: 0, stdout: '', stderr: '' } : win.run(file, args));
      expect(checkPrivateAcl(DATA, [], { run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT })).toEqual({ kind: 'unverifiable', reason: `PowerShell's Get-Acl printed no owner for ${DATA}` });
    });

    it('through assertPrivateHome: one line naming the path, the owner and the fix', () => {
      const home = join(tmp.home, 'data');
      mkdirSync(home);
      const win = fakeWindows({ [home]: `O:${OTHER_SID}G:${OTHER_SID}${SERVICE_DACL}` }, { user: SYSTEM_USER });
      expect(() => assertPrivateHome(home, { platform: 'win32', acl: { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT, userProfile: 'C:\\WINDOWS\\system32\\config\\systemprofile' } })).toThrow(
        `${home} is accessible by other users (its ACL lets its owner ${OTHER_SID}, who can always change its ACL, read it); fix it with: icacls "${home}" /setowner *S-1-5-32-544 /T /C /L (as an administrator; reinstalling the service does it too)`,
      );
    });
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
      if (file === ICACLS) seen.push(existsSync(join(home, 'results')));
      return win.run(file, args);
    };
    ensureHome(home, { platform: 'win32', acl: { run, systemRoot: SYSTEM_ROOT } });
    expect(win.calls).toEqual([
      [WHOAMI, '/user', '/fo', 'csv', '/nh'],
      [ICACLS, home, '/inheritance:r', '/grant:r', `*${USER_SID}:(OI)(CI)F`],
    ]);
    expect(seen).toEqual([false]);
    expect(statSync(join(home, 'results')).isDirectory()).toBe(true);
    ensureHome(home, { platform: 'win32', acl: { run, systemRoot: SYSTEM_ROOT } });
    expect(win.calls).toHaveLength(2);
  });

  it('stops when icacls cannot set the ACL, naming the dir and the command', () => {
    const home = join(tmp.home, 'h');
    const win = fakeWindows({}, { icaclsStatus: 5 });
    expect(() => ensureHome(home, { platform: 'win32', acl: { run: win.run, systemRoot: SYSTEM_ROOT } })).toThrow(
      `could not make ${home} private to desktop-1\\ana (icacls exited 5: ${home}: Access is denied.); run: icacls "${home}" "/inheritance:r" "/grant:r" "*${USER_SID}:(OI)(CI)F"`,
    );
  });

  it('refuses to start when others can read the dir, naming the path and the fix', () => {
    mkdirSync(join(tmp.home, 'h'));
    const home = join(tmp.home, 'h');
    const win = fakeWindows({ [home]: DRIVE_ROOT_CHILD });
    expect(() => assertPrivateHome(home, { platform: 'win32', acl: { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT } })).toThrow(
      `${home} is accessible by other users (its ACL lets Users (S-1-5-32-545), Authenticated Users (S-1-5-11) read it); fix it with: icacls "${home}" /inheritance:r /grant:r "*${USER_SID}:(OI)(CI)F"`,
    );
  });

  it('starts with a warning where the ACL cannot be read (wine)', () => {
    const home = join(tmp.home, 'h');
    mkdirSync(home);
    const win = fakeWindows({ [home]: DRIVE_ROOT_CHILD }, { wine: true });
    expect(assertPrivateHome(home, { platform: 'win32', acl: { run: win.run, tmpDir: tmp.home, systemRoot: SYSTEM_ROOT } })).toEqual([
      `could not check who can read ${home}: whoami /user printed no SID for the current user`,
    ]);
  });
});
