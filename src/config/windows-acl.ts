import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, win32 } from 'node:path';
import { ConfigurationError } from '../errors/errors';
import { parseDacl, readersOf, WELL_KNOWN_NAMES } from './sddl';

/**
 * CONTRACT Security on Windows: a file mode says nothing there about who can read a file, the
 * ACL does. A new config dir gets an ACL for the service's user alone; at start the ACL of the
 * dir and of its secret files is read back and the service refuses when anyone else may read.
 *
 * Tools, not native calls (only chip/loader.ts loads native code): `whoami /user` for the user's
 * SID, `icacls /save` for the DACL as SDDL (SIDs, not the localised names `icacls <dir>` prints
 * in the console code page), `icacls /inheritance:r /grant:r` to set it.
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
}

const runTool: RunTool = (file, args) => {
  // latin1 keeps every byte of the console code page; only ASCII (SIDs, CSV quotes) is read.
  const r = spawnSync(file, args, { encoding: 'latin1', windowsHide: true, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error };
};

/** Principals whose access does not widen who can read: the user, SYSTEM, Administrators, CREATOR OWNER. */
const ALWAYS_ALLOWED = ['S-1-5-18', 'S-1-5-32-544', 'S-1-3-0'];

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

function currentUser(run: RunTool): WindowsUser | null {
  const r = run('whoami', [...WHOAMI_USER_ARGS]);
  return r.error || r.status !== 0 ? null : parseWhoamiUser(r.stdout);
}

/** On a config dir just created: an ACL for the current user only (throws when icacls fails). */
export function protectDir(dir: string, deps: AclDeps = {}): void {
  const run = deps.run ?? runTool;
  const user = currentUser(run);
  if (!user) throw new ConfigurationError(`cannot tell which Windows user runs localsign (whoami failed), so ${dir} was not made private`);
  const args = protectArgs(dir, principalOf(user));
  const r = run('icacls', args);
  if (r.error || r.status !== 0) {
    const why = (r.error?.message ?? `${r.stdout}${r.stderr}`).trim().split(/\r?\n/)[0];
    throw new ConfigurationError(`could not make ${dir} private to ${user.name} (icacls exited ${r.status ?? 'without status'}: ${why}); run: icacls ${args.map((a) => quote(a)).join(' ')}`);
  }
}

export type AclVerdict =
  | { kind: 'private' }
  | { kind: 'exposed'; path: string; readers: string; fix: string }
  | { kind: 'unverifiable'; reason: string };

function saveAcls(run: RunTool, target: string, tmp: string): { name: string; sddl: string }[] {
  const dir = mkdtempSync(join(tmp, 'localsign-acl-'));
  const file = join(dir, 'acl.txt');
  try {
    const r = run('icacls', saveAclArgs(target, file));
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
  const tmp = deps.tmpDir ?? tmpdir();
  const user = currentUser(run);
  if (!user?.sid) return { kind: 'unverifiable', reason: 'whoami /user printed no SID for the current user' };
  const [own] = saveAcls(run, dir, tmp);
  if (!own) return { kind: 'unverifiable', reason: `icacls /save wrote no ACL for ${dir} (wine's icacls is a stub that saves nothing)` };
  const allowed = new Set([user.sid, ...ALWAYS_ALLOWED]);
  const dacl = parseDacl(own.sddl);
  const others = readersOf(dacl).filter((s) => !allowed.has(s));
  if (others.length) {
    const explicit = others.filter((s) => dacl.aces.some((a) => a.sid === s && a.type !== 'D' && !a.flags.includes('ID')));
    return { kind: 'exposed', path: dir, readers: describe(others), fix: fixDirCommand(dir, principalOf(user), explicit) };
  }
  const wanted = new Set(secretFiles.map((f) => f.toLowerCase()));
  for (const entry of saveAcls(run, win32.join(dir, '*'), tmp)) {
    const base = win32.basename(entry.name);
    if (!wanted.has(base.toLowerCase())) continue;
    const fileOthers = readersOf(parseDacl(entry.sddl)).filter((s) => !allowed.has(s));
    const path = win32.join(dir, base);
    // /reset: the file takes the inherited entries of the (private) dir, nothing of its own.
    if (fileOthers.length) return { kind: 'exposed', path, readers: describe(fileOthers), fix: `icacls ${quote(path)} /reset` };
  }
  return { kind: 'private' };
}
