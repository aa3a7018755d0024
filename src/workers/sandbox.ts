/**
 * What a PDF worker process may touch. A PDF worker parses strangers' documents; were a
 * parser bug ever turned into code running in it, that code should find nothing worth taking.
 * Two fences:
 * - its environment: only what the runtime reads (config/env.ts workerEnvironment), never the
 *   chip PIN variable or a LOCALSIGN_ secret;
 * - Node's permission model (https://nodejs.org/api/permissions.html): reads only of its own
 *   bundle's folder and of the scratch folder (the config dir's work/, where large documents
 *   cross), writes only there; no child processes, no worker threads, no native addons. The rest
 *   of the config dir (application keys, the pairing's agent secret, the software chip's keys,
 *   the PIN file, the logs) is out of reach.
 * Node says of its permission model that it limits what trusted code does by mistake and is no
 * boundary against code that means harm (its SECURITY.md): it fences JavaScript, not native
 * code a V8 exploit would run. It is the fence the platform has without privileges or a second
 * user account; the process boundary and the heap limit stay the first one (handles.ts).
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The flag that turns the permission model on for `nodeVersion` (e.g. `22.23.3`): `--permission`
 * since 22.13 (stable there, and the old name is gone in later releases),
 * `--experimental-permission` on 20 and 21 (with its start-up warning silenced: the worker's stderr
 * is read for the out-of-memory report, handles.ts). Null before 20: no permission model.
 */
export function permissionFlags(nodeVersion: string): string[] | null {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/u, '').split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 13)) return ['--permission'];
  if (major >= 20) return ['--experimental-permission', '--disable-warning=ExperimentalWarning'];
  return null;
}

/**
 * `flag=FOLDER/*` for each folder (a folder and everything in it), also under its real path when a
 * link leads there (the grant is compared with the path a file is opened by). Each once: Node 20
 * aborts at start-up on a path granted twice (fs_permission.h RadixTree, "Assertion failed:
 * !path_prefix.empty()"), as when the scratch folder is the bundle's.
 */
function folderGrants(flag: string, folders: string[]): string[] {
  const paths = folders.flatMap((folder) => {
    try {
      return [folder, realpathSync(folder)];
    } catch {
      return [folder]; // not there yet: the grant names it as given
    }
  });
  return [...new Set(paths.map((path) => join(path, '*')))].map((grant) => `${flag}=${grant}`);
}

/**
 * The V8 flags of a PDF worker: its heap limit and its young generation's semi-spaces. V8 takes a
 * code cache only under the flags it was made with: the build makes the PDF worker's under these,
 * with the default heap limit (build/bundle.mjs, build/pdf-worker-cache.cjs).
 */
export function pdfWorkerV8Flags(o: { heapMb: number; semiSpaceMb: number }): string[] {
  return [`--max-old-space-size=${o.heapMb}`, `--max-semi-space-size=${o.semiSpaceMb}`];
}

/**
 * The options a PDF worker starts with: its heap limit and the size of its young generation's
 * semi-spaces (handles.ts WORKER_SEMI_SPACE_MB), then the permission model with reads of
 * `readFolders` and `scratch`, writes of `scratch` only (one flag per path: a comma separated them
 * only in the first Node 20 releases, nodejs/node#49047).
 */
export function pdfWorkerOptions(o: { heapMb: number; semiSpaceMb: number; nodeVersion: string; readFolders: string[]; scratch: string }): string[] {
  const options = pdfWorkerV8Flags(o);
  const permission = permissionFlags(o.nodeVersion);
  if (!permission) return options;
  return [...options, ...permission, ...folderGrants('--allow-fs-read', [...o.readFolders, o.scratch]), ...folderGrants('--allow-fs-write', [o.scratch])];
}

/**
 * Options as one NODE_OPTIONS value, which the single executable honours as node does (its
 * command line is the program's own). Each is quoted: a home folder may hold spaces; inside the
 * quotes node reads a backslash as escaping the next character (node_options.cc,
 * ParseNodeOptionsEnvVar), so Windows paths have theirs doubled.
 */
export function nodeOptionsValue(options: string[]): string {
  return options.map((option) => `"${option.replace(/[\\"]/gu, '\\$&')}"`).join(' ');
}
