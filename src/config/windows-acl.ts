import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, win32 } from 'node:path';
import { ConfigurationError } from '../domain/errors';
import { readWindowsEnv } from './env';
import { parseDacl, parseOwner, readersOf, WELL_KNOWN_NAMES } from './sddl';
import { windowsToolPath, type WindowsTool } from './windows-tools';

/**
 * CONTRACT Security on Windows: a file mode says nothing there about who can read a file, the
 * ACL does. A new config dir gets an ACL for the service's user alone; at start the ACL of the
 * dir and of its secret files is read back and the service refuses when anyone else may read.
 *
 * Tools, not native calls (only chip/loader.ts loads native code), each by its full path
 * (windows-tools.ts): `whoami /user` for the user's SID, `icacls /save` for the DACL as SDDL
 * (SIDs, not the localised names `icacls <dir>` prints in the console code page), `icacls
 * /inheritance:r /grant:r` to set it, and PowerShell's `Get-Acl` for the owner, which icacls
 * prints nowhere (a %ProgramData%\localsign a user made before the install would stay theirs,
 * and its owner may rewrite its ACL at any time).
 *
 * wine 8's icacls is a stub ("This is dummy icacls, not performing ACL manipulations"): it exits
 * 0, sets nothing and saves nothing, and its whoami ignores /user. There the check cannot read an
 * ACL and says so (a warning, not a refusal); what runs under wine is the command lines below.
 */

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}
export type RunTool = (file: string, args: string[]) => ToolRun;

export interface AclDeps {
  run?: RunTool;
  /** Where `icacls /save` writes its file (default: the OS temp dir). */
  tmpDir?: string;
  /** %SystemRoot%, where the tools are (default: config/env.ts readWindowsEnv). */
  systemRoot?: string;
  /** %USERPROFILE% (default: config/env.ts readWindowsEnv): a dir inside it is its user's own. */
  userProfile?: string;
}

const tool = (name: WindowsTool, deps: AclDeps) => windowsToolPath(name, deps.systemRoot ?? readWindowsEnv().systemRoot);

const runTool: RunTool = (file, args) => {
  // latin1 keeps every byte of the console code page; only ASCII (SIDs, CSV quotes) is read.
  const r = spawnSync(file, args, { encoding: 'latin1', windowsHide: true, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
};

/** Principals whose access does not widen who can read: the user, SYSTEM, Administrators, CREATOR OWNER. */
const ALWAYS_ALLOWED = ['S-1-5-18', 'S-1-5-32-544', 'S-1-3-0'];

/** The owners an installed service's data may have: SYSTEM (the service) and Administrators (the installer, an elevated CLI). */
export const SERVICE_OWNERS: readonly string[] = ['S-1-5-18', 'S-1-5-32-544'];

export const WHOAMI_USER_ARGS: readonly string[] = ['/user', '/fo', 'csv', '/nh'];

/**
 * `icacls <dir> /inheritance:r /grant:r <user>:(OI)(CI)F`: drop the entries inherited from the
 * parent (a profile's, or Users:(RX) at a drive root), then full control for the user, inherited
 * by every file (OI) and folder (CI) created inside.
 */
export function protectArgs(dir: string, principal: string): string[] {
  return [dir, '/inheritance:r', '/grant:r', `${principal}:(OI)(CI)F`];
}

/** `icacls <target> /save <file> /c /q`: the DACL of each match as SDDL (UTF-16), errors skipped. */
export function saveAclArgs(target: string, aclFile: string): string[] {
  return [target, '/save', aclFile, '/c', '/q'];
}

export interface WindowsUser {
  name: string;
  sid: string | null;
}

/** `"desktop-1\ana","S-1-5-21-…-1001"` (whoami /user /fo csv /nh); a bare name when /user was ignored. */
export function parseWhoamiUser(stdout: string): WindowsUser | null {
  const line = stdout.split(/\r?\n/).find((l) => l.trim() !== '');
  if (!line) return null;
  const fields = [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  if (fields.length >= 2 && /^S-1-\d+(-\d+)+$/.test(fields[1]!)) return { name: fields[0]!, sid: fields[1]! };
  return { name: line.trim(), sid: null };
}

/** icacls names a principal by SID with a leading "*" (icacls /?), which needs no name lookup. */
export function principalOf(user: WindowsUser): string {
  return user.sid ? `*${user.sid}` : user.name;
}

/** Name/SDDL pairs from an `icacls /save` file: UTF-16LE (BOM or not), a name line then its SDDL line. */
export function parseSavedAcls(bytes: Buffer): { name: string; sddl: string }[] {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes.length > 1 && bytes[1] === 0);
  const text = (utf16 ? bytes.toString('utf16le') : bytes.toString('utf8')).replace(/^\uFEFF/, '');
  const out: { name: string; sddl: string }[] = [];
  let name = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    if (/^(O:|G:|D:)/.test(line)) out.push({ name, sddl: line });
    else name = line;
  }
  return out;
}

const quote = (path: string) => `"${path}"`;

/** The command a user runs to make `dir` private; explicit grants to others are removed too. */
export function fixDirCommand(dir: string, principal: string, explicitOthers: string[]): string {
  const remove = explicitOthers.length ? ` /remove:g ${explicitOthers.map((s) => (s.startsWith('S-') ? `*${s}` : s)).join(' ')}` : '';
  return `icacls ${quote(dir)} /inheritance:r /grant:r ${quote(`${principal}:(OI)(CI)F`)}${remove}`;
}

function describe(sids: string[]): string {
  return sids.map((s) => (WELL_KNOWN_NAMES[s] ? `${WELL_KNOWN_NAMES[s]} (${s})` : s)).join(', ');
}

function currentUser(run: RunTool, deps: AclDeps): WindowsUser | null {
  const r = run(tool('whoami', deps), [...WHOAMI_USER_ARGS]);
  return r.error || r.status !== 0 ? null : parseWhoamiUser(r.stdout);
}

/** A PowerShell single-quoted string: `'` doubled, and the typographic quotes that also end one (about_Quoting_Rules). */
export function powershellQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

/**
 * `powershell -EncodedCommand …`: for each path, one line, the SDDL of its security descriptor
 * (owner, group, DACL: "O:BAG:SYD:PAI(…)"), "-" when it does not exist, "?" when it cannot be
 * read. The script travels base64-encoded UTF-16LE (about_PowerShell_exe), so no path is ever
 * parsed as part of a command line; -LiteralPath takes `[` and `*` as they are.
 */
export function ownerQueryArgs(paths: readonly string[]): string[] {
  const script = `foreach ($p in @(${paths.map(powershellQuote).join(',')})) { try { if (Test-Path -LiteralPath $p) { (Get-Acl -LiteralPath $p).Sddl } else { '-' } } catch { '?' } }`;
  return ['-NoLogo', '-NoProfile', '-NonInteractive', '-EncodedCommand', Buffer.from(script, 'utf16le').toString('base64')];
}

/** The owner SIDs of `ownerQueryArgs`' answer, in order: null for a path that does not exist; null for all when any line is not an SDDL with an owner (or when there are too few: wine). */
export function parseOwnerLines(stdout: string, count: number): (string | null)[] | null {
  const lines = stdout.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length !== count) return null;
  const owners: (string | null)[] = [];
  for (const line of lines) {
    if (line === '-') {
      owners.push(null);
      continue;
    }
    const owner = parseOwner(line);
    if (!owner) return null;
    owners.push(owner);
  }
  return owners;
}

/** The owners of `paths` (null entries: absent), or null when PowerShell could not tell. */
export function readOwners(paths: readonly string[], deps: AclDeps = {}): (string | null)[] | null {
  const run = deps.run ?? runTool;
  const r = run(tool('powershell', deps), ownerQueryArgs(paths));
  return r.error || r.status !== 0 ? null : parseOwnerLines(r.stdout, paths.length);
}

/** `icacls <dir> /setowner *S-1-5-32-544 /T /C /L /Q`: Administrators own the dir and all in it (/L: a link itself, never its target). */
export function setOwnerArgs(dir: string): string[] {
  return [dir, '/setowner', '*S-1-5-32-544', '/T', '/C', '/L', '/Q'];
}

/** The command an administrator runs to give a dir and all in it to Administrators. */
export function fixOwnerCommand(dir: string): string {
  return `icacls ${quote(dir)} /setowner *S-1-5-32-544 /T /C /L`;
}

/** Whether `dir` is inside the user's profile, where no other standard user can create it. */
function insideProfile(dir: string, profile: string | undefined): boolean {
  if (!profile) return false;
  const rel = win32.relative(profile, dir);
  return !rel.startsWith('..') && !win32.isAbsolute(rel);
}

/** On a config dir just created: an ACL for the current user only (throws when icacls fails). */
export function protectDir(dir: string, deps: AclDeps = {}): void {
  const run = deps.run ?? runTool;
  const user = currentUser(run, deps);
  if (!user) throw new ConfigurationError(`cannot tell which Windows user runs localsign (whoami failed), so ${dir} was not made private`);
  const args = protectArgs(dir, principalOf(user));
  const r = run(tool('icacls', deps), args);
  if (r.error || r.status !== 0) {
    const why = (r.error?.message ?? `${r.stdout}${r.stderr}`).trim().split(/\r?\n/)[0];
    throw new ConfigurationError(`could not make ${dir} private to ${user.name} (icacls exited ${r.status ?? 'without status'}: ${why}); run: icacls ${args.map((a) => quote(a)).join(' ')}`);
  }
}

export type AclVerdict =
  | { kind: 'private' }
  /** `owner`: set when it is the owner, not the DACL, that lets someone else in. */
  | { kind: 'exposed'; path: string; readers: string; fix: string; owner?: string }
  | { kind: 'unverifiable'; reason: string };

/** The DACLs `icacls /save` writes for `target` (a path, or `dir\*` for what is in it). */
export function saveAcls(target: string, deps: AclDeps = {}): { name: string; sddl: string }[] {
  const run = deps.run ?? runTool;
  const dir = mkdtempSync(join(deps.tmpDir ?? tmpdir(), 'localsign-acl-'));
  const file = join(dir, 'acl.txt');
  try {
    const r = run(tool('icacls', deps), saveAclArgs(target, file));
    if (r.error) return [];
    try {
      return parseSavedAcls(readFileSync(file));
    } catch {
      return []; // nothing saved: no match, or an icacls that saves nothing (wine)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads back the ACL of `dir` and of its `secretFiles`: who besides the user may read them. */
export function checkPrivateAcl(dir: string, secretFiles: readonly string[], deps: AclDeps = {}): AclVerdict {
  const run = deps.run ?? runTool;
  const user = currentUser(run, deps);
  if (!user?.sid) return { kind: 'unverifiable', reason: 'whoami /user printed no SID for the current user' };
  const [own] = saveAcls(dir, { ...deps, run });
  if (!own) return { kind: 'unverifiable', reason: `icacls /save wrote no ACL for ${dir} (wine's icacls is a stub that saves nothing)` };
  const allowed = new Set([user.sid, ...ALWAYS_ALLOWED]);
  const dacl = parseDacl(own.sddl);
  const others = readersOf(dacl).filter((s) => !allowed.has(s));
  if (others.length) {
    const explicit = others.filter((s) => dacl.aces.some((a) => a.sid === s && a.type !== 'D' && !a.flags.includes('ID')));
    return { kind: 'exposed', path: dir, readers: describe(others), fix: fixDirCommand(dir, principalOf(user), explicit) };
  }
  const wanted = new Set(secretFiles.map((f) => f.toLowerCase()));
  for (const entry of saveAcls(win32.join(dir, '*'), { ...deps, run })) {
    const base = win32.basename(entry.name);
    if (!wanted.has(base.toLowerCase())) continue;
    const fileOthers = readersOf(parseDacl(entry.sddl)).filter((s) => !allowed.has(s));
    const path = win32.join(dir, base);
    // /reset: the file takes the inherited entries of the (private) dir, nothing of its own.
    if (fileOthers.length) return { kind: 'exposed', path, readers: describe(fileOthers), fix: `icacls ${quote(path)} /reset` };
  }
  return checkOwners(dir, secretFiles, user.sid, { ...deps, run });
}

/**
 * The owners of the dir and of its secret files, when the dir is outside the user's profile
 * (%ProgramData%\localsign, the service's, above all): whoever owns one may grant themselves
 * read access whatever the DACL says, so only the user, SYSTEM or Administrators may. A dir in
 * the profile is skipped: no other standard user can create anything there, and a PowerShell
 * start (about half a second) is not spent on every command for nothing.
 */
function checkOwners(dir: string, secretFiles: readonly string[], userSid: string, deps: AclDeps): AclVerdict {
  if (insideProfile(dir, deps.userProfile ?? readWindowsEnv().userProfile)) return { kind: 'private' };
  const paths = [dir, ...secretFiles.map((f) => win32.join(dir, f))];
  const owners = readOwners(paths, deps);
  if (!owners || owners[0] === null) return { kind: 'unverifiable', reason: `PowerShell's Get-Acl printed no owner for ${dir}` };
  const allowed = new Set([userSid, ...SERVICE_OWNERS]);
  for (const [n, owner] of owners.entries()) {
    if (owner === null || allowed.has(owner)) continue;
    return {
      kind: 'exposed',
      path: paths[n]!,
      owner,
      readers: `its owner ${describe([owner])}, who can always change its ACL,`,
      // The whole dir: a foreign owner of the dir may have made anything in it.
      fix: `${fixOwnerCommand(dir)} (as an administrator; reinstalling the service does it too)`,
    };
  }
  return { kind: 'private' };
}
