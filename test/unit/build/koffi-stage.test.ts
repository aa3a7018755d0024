import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepKoffiPath, stageKoffi } from '../../../build/koffi-stage.mjs';
import { tempDir } from '../../helpers/temp-dir';

const ROOT = resolve(__dirname, '../../..');

const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [`${e.name}/`, ...files(join(dir, e.name)).map((f) => `${e.name}/${f}`)] : [e.name]));

/**
 * The chip bridge every package ships beside its executable (.deb, NSIS, MSI, .pkg). koffi 3
 * loads its JavaScript from src/koffi/ (index.cjs, then src/static.cjs): a copy that left src/ out
 * could not be loaded at all. Loaded here by Node from the staged copy, as the single executable
 * loads it (createRequire from beside the executable).
 */
describe('koffi as the packages stage it', () => {
  const dir = tempDir('localsign-koffi-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads, and finds its native prebuilt, from the staged copy alone', () => {
    expect(process.cwd()).toBe(ROOT); // stageKoffi copies from ./node_modules
    stageKoffi(dir, [join('node_modules', '@koromix', 'koffi-linux-x64')]);
    // sizeof() is answered by the native addon: loaded, not only resolved.
    const script = `const k = require('node:module').createRequire(${JSON.stringify(join(dir, 'localsign'))})('koffi'); console.log(k.sizeof('int32_t'))`;
    expect(execFileSync(process.execPath, ['-e', script], { cwd: tmpdir(), encoding: 'utf8' }).trim()).toBe('4');
  });

  it('leaves out sources, headers, docs, stamps and empty folders', () => {
    const staged = files(join(dir, 'node_modules'));
    expect(staged).toContain('koffi/src/koffi/index.cjs');
    expect(staged).toContain('koffi/src/koffi/src/static.cjs');
    expect(staged.filter((f) => /\.(cc|hh|h|c|S|asm)$|CMakeLists|\.sha256$|^koffi\/(vendor|doc|lib)\//.test(f))).toEqual([]);
    const dirs = staged.filter((f) => f.endsWith('/'));
    expect(dirs.filter((d) => !staged.some((f) => f !== d && f.startsWith(d)))).toEqual([]);
  });

  it('keeps JavaScript and the licence wherever they are, never vendor/, doc/ or lib/', () => {
    expect(keepKoffiPath('src/koffi/src/static.cjs', false)).toBe(true);
    expect(keepKoffiPath('LICENSE.txt', false)).toBe(true);
    expect(keepKoffiPath('src/koffi/src/ffi.cc', false)).toBe(false);
    expect(keepKoffiPath('vendor/node-api-headers/package.json', false)).toBe(false);
    expect(keepKoffiPath('lib', true)).toBe(false);
  });
});
