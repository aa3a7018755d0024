import { lstatSync, mkdirSync } from 'node:fs';
import { win32 } from 'node:path';
import { parseDacl, readersOf } from '../config/sddl';
import { readOwners, saveAcls, SERVICE_OWNERS, setOwnerArgs, type AclDeps, type RunTool } from '../config/windows-acl';
import { windowsToolPath } from '../config/windows-tools';
import { ConfigurationError } from '../domain/errors';
import { runChecked, type Runner } from './run-command';

/**
 * The installed service's data dir, %ProgramData%\localsign: SYSTEM (the service) and
 * Administrators (the installer, an elevated CLI) alone, and owned by one of them.
 *
 * Why: any user may create a folder in %ProgramData% (its default ACL: Users may create
 * folders, CREATOR OWNER gets full control), so a standard user could make
 * %ProgramData%\localsign before the install. Kept as it was, it would stay that user's, and an
 * owner may rewrite a DACL whatever it says (MS-DTYP §2.5.3.2: implicit READ_CONTROL, WRITE_DAC).
 * Such a dir is given to Administrators here: the owner of everything in it, the dir's grants
 * to others removed, everything in it reset to inherit the dir's ACL alone; then read back, and
 * refused if it did not take (a user racing the installer). The service checks the owner again at
 * every start (config/windows-acl.ts). A dir whose owner is already SYSTEM or Administrators (an
 * upgrade) is not walked again.
 */
const SYSTEM = 'S-1-5-18';
const ADMINISTRATORS = 'S-1-5-32-544';

/** `icacls <home> /inheritance:r /grant:r`: SYSTEM and Administrators, inherited by all, by SID (names are localised). */
export function serviceDirAclArgs(home: string): string[] {
  return [home, '/inheritance:r', '/grant:r', `*${SYSTEM}:(OI)(CI)F`, `*${ADMINISTRATORS}:(OI)(CI)F`];
}

/** `icacls <home>\* /reset /T /C /L /Q`: all inside inherits the dir's ACL, nothing of its own (/L: links themselves). */
export function resetChildrenArgs(home: string, join: (a: string, b: string) => string = win32.join): string[] {
  return [join(home, '*'), '/reset', '/T', '/C', '/L', '/Q'];
}

export interface DataDirDeps {
  run: Runner;
  systemRoot?: string;
  tmpDir?: string;
  /** win32.join on Windows; the tests run this on Linux with POSIX paths. */
  join?: (a: string, b: string) => string;
}

/** The install side's runner as the ACL reader's (windows-acl.ts). */
const asTool = (run: Runner): RunTool => (file, args) => {
  const r = run(file, args);
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
};

/**
 * A junction or symbolic link at the dir (or at its logs folder, which shawl writes as SYSTEM)
 * would send icacls and the service's writes to wherever it points; Node's lstat reports a
 * junction as a symbolic link.
 */
function refuseLink(path: string): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new ConfigurationError(`${path} is a junction or symbolic link; the service's data dir must be a real folder: remove it (rmdir "${path}") and install again`);
  }
}

/** Sets up the data dir as the doc comment says; `reowned`: it was someone else's and is Administrators' now. */
export function secureServiceDataDir(home: string, deps: DataDirDeps): { reowned: boolean } {
  const join = deps.join ?? win32.join;
  const logs = join(home, 'logs');
  refuseLink(home);
  refuseLink(logs);
  mkdirSync(logs, { recursive: true });
  const icacls = windowsToolPath('icacls', deps.systemRoot);
  const acl: AclDeps = { run: asTool(deps.run), systemRoot: deps.systemRoot, tmpDir: deps.tmpDir };
  runChecked(deps.run, icacls, serviceDirAclArgs(home));
  const before = readOwners([home], acl)?.[0];
  // No answer (wine has no Get-Acl): as before; the service says at start that it could not check.
  if (!before || SERVICE_OWNERS.includes(before)) return { reowned: false };

  // /inheritance:r removed the inherited entries; grants the owner added to the dir itself stay.
  const others = explicitGrants(home, acl);
  if (others.length) runChecked(deps.run, icacls, [home, '/remove:g', ...others.map((s) => `*${s}`)]);
  runChecked(deps.run, icacls, setOwnerArgs(home));
  runChecked(deps.run, icacls, resetChildrenArgs(home, join));

  const after = readOwners([home], acl)?.[0];
  const readers = readersAfter(home, acl);
  if (after !== ADMINISTRATORS || readers.length) {
    throw new ConfigurationError(
      `${home} is owned by ${before}, not by SYSTEM or Administrators, and could not be given to Administrators (its owner is now ${after ?? 'unknown'}${readers.length ? `, readable by ${readers.join(', ')}` : ''}): delete it (rmdir /s "${home}", after saving what you need from it) and install again`,
    );
  }
  return { reowned: true };
}

function explicitGrants(home: string, acl: AclDeps): string[] {
  const [own] = saveAcls(home, acl);
  if (!own) return [];
  const aces = parseDacl(own.sddl).aces.filter((a) => (a.type === 'A' || a.type === 'XA') && !a.flags.includes('ID') && a.sid.startsWith('S-1-'));
  return [...new Set(aces.map((a) => a.sid))].filter((s) => s !== SYSTEM && s !== ADMINISTRATORS);
}

function readersAfter(home: string, acl: AclDeps): string[] {
  const [own] = saveAcls(home, acl);
  if (!own) return [];
  return readersOf(parseDacl(own.sddl)).filter((s) => s !== SYSTEM && s !== ADMINISTRATORS && s !== 'S-1-3-0');
}
