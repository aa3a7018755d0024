/**
 * koffi resolution outside the source tree (chip/loader.ts): the PKCS#11 bridge bundled by
 * esbuild the way build/bundle.mjs does (CJS, koffi external), run by a separate Node process
 * - next to a node_modules (the `dist/localsign.cjs` layout),
 * - with node_modules only beside the Node executable (the single-executable layout, where
 *   `createRequire(process.execPath)` is the way in),
 * - with no koffi anywhere (a clear ChipError).
 */
import { execFile } from 'node:child_process';
import { copyFile, link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSoftHsmToken, type SoftHsmToken } from '../../helpers/softhsm';

const run = promisify(execFile);
const projectModules = resolve('node_modules');

let token: SoftHsmToken;
let dir: string;
let bundleSource: string;

// Lists the keys and signs one digest; the PIN comes from the environment, never argv. CJS has
// no top-level await, hence main().
const ENTRY = `
import { createPkcs11Chip } from ${JSON.stringify(resolve('src/chip/pkcs11'))};
async function main() {
  const [modulePath, tokenLabel] = process.argv.slice(2);
  try {
    const chip = await createPkcs11Chip({ modulePath, tokenLabel, pin: () => process.env.LOCALSIGN_TEST_PIN ?? '' });
    const keys = await chip.listKeys();
    const signature = await chip.signDigest(keys[0].id, new Uint8Array(32).fill(1));
    await chip.close();
    console.log(JSON.stringify({ keys: keys.map((k) => [k.id, k.algorithm]), signatureLength: signature.length }));
  } catch (error) {
    console.log(JSON.stringify({ error: error.name + ': ' + error.message }));
  }
}
void main();
`;

async function placeBundle(file: string): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await copyFile(bundleSource, file);
}

async function runBundle(node: string, bundle: string): Promise<unknown> {
  const env: NodeJS.ProcessEnv = { ...token.env, LOCALSIGN_TEST_PIN: token.pin };
  delete env.NODE_PATH;
  const { stdout } = await run(node, [bundle, token.modulePath, token.label], { cwd: dir, env });
  return JSON.parse(stdout.trim());
}

beforeAll(async () => {
  token = await createSoftHsmToken({ label: 'bundle-token', keys: ['p256'] });
  dir = await mkdtemp(join(tmpdir(), 'localsign-bundle-'));
  await writeFile(join(dir, 'entry.ts'), ENTRY);
  bundleSource = join(dir, 'built.cjs');
  // The options of build/bundle.mjs that matter here: CJS for Node 20, koffi external.
  await build({
    entryPoints: [join(dir, 'entry.ts')],
    outfile: bundleSource,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['koffi'],
    logLevel: 'silent',
  });
});

afterAll(async () => {
  await token?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('koffi resolution from a bundle', () => {
  it('finds koffi in the node_modules next to dist/localsign.cjs', async () => {
    const bundle = join(dir, 'app', 'dist', 'localsign.cjs');
    await placeBundle(bundle);
    await symlink(projectModules, join(dir, 'app', 'node_modules'));
    expect(await runBundle(process.execPath, bundle)).toEqual({ keys: [['02', 'p256']], signatureLength: 64 });
  });

  it('finds koffi in the node_modules beside the executable (single-executable layout)', async () => {
    const bin = join(dir, 'sea', 'bin');
    await mkdir(bin, { recursive: true });
    const node = join(bin, 'node');
    // process.execPath is the real path of the binary (/proc/self/exe), so a symlink would not do.
    await link(process.execPath, node).catch(() => copyFile(process.execPath, node));
    await symlink(projectModules, join(bin, 'node_modules'));
    const bundle = join(dir, 'sea', 'app', 'localsign.cjs');
    await placeBundle(bundle);
    expect(await runBundle(node, bundle)).toEqual({ keys: [['02', 'p256']], signatureLength: 64 });
  });

  it('says where it looked when koffi is nowhere', async () => {
    const bundle = join(dir, 'bare', 'localsign.cjs');
    await placeBundle(bundle);
    const result = (await runBundle(process.execPath, bundle)) as { error: string };
    expect(result.error).toMatch(/^ChipError: cannot load koffi, the native bridge to PKCS#11 modules; tried: the bundle \(Cannot find module 'koffi'/u);
    expect(result.error).toContain(`node_modules of ${process.execPath} (Cannot find module 'koffi'`);
    expect(result.error).not.toContain(token.pin);
  });
});
