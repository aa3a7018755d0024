/**
 * AGENTS.md is a map a newcomer reads whole: two screens at most, every folder of src/ in its
 * table, and every page it sends the reader to present. The file-by-file detail is docs/files.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const text = readFileSync(join(ROOT, 'AGENTS.md'), 'utf8');

describe('AGENTS.md, the map', () => {
  it('fits on two screens: at most 100 lines and 10,000 characters', () => {
    expect(text.split('\n').length).toBeLessThanOrEqual(100);
    expect(text.length).toBeLessThanOrEqual(10_000);
  });

  it("names every folder of src/ in 'Where things are'", () => {
    const table = /## Where things are\n([\s\S]*?)\n\n/.exec(text)?.[1] ?? '';
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'types').map((d) => d.name);
    expect(folders.length).toBeGreaterThan(10);
    const missing = folders.filter((f) => !table.includes(`src/${f}/`) && !table.includes(`\`${f}/\``));
    expect(missing).toEqual([]);
  });

  it('sends the reader only to pages that exist', () => {
    const links = [...text.matchAll(/\]\(([^)#]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((l) => !existsSync(join(ROOT, l)))).toEqual([]);
  });
});
