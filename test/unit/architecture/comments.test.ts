/**
 * Comments say why, in their own words, and cite the clause they follow; the history of a change
 * (which issue asked for it) is in `git log`, where it stays true. A comment line of the shipped
 * code that cites an issue number is refused, with its place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const ISSUE = /\b[Ii]ssues? #?\d+/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|cts|mjs|cjs|js)$/.test(e.name) ? [path] : [];
  });
}

/** The comment text of a line: a line comment, a block comment's line, or a trailing `// …`. */
function commentOf(line: string): string | null {
  const t = line.trimStart();
  if (t.startsWith('//') || t.startsWith('/*') || t.startsWith('*')) return t;
  const i = line.indexOf(' // ');
  return i >= 0 ? line.slice(i) : null;
}

describe('comments of the shipped code', () => {
  it('cite no issue number: history is in git log', () => {
    const found: string[] = [];
    for (const dir of ['src', 'build', 'clients/typescript/src']) {
      for (const file of sourceFiles(join(ROOT, dir))) {
        const lines = readFileSync(file, 'utf8').split('\n');
        lines.forEach((line, i) => {
          const comment = commentOf(line);
          if (!comment) return;
          // "(issue" at the end of a line with its number on the next comment line counts too.
          const next = /\b[Ii]ssues?$/.test(comment.trimEnd()) ? (commentOf(lines[i + 1] ?? '') ?? '') : '';
          if (ISSUE.test(comment) || /^(\/\/|\*)\s*#?\d/.test(next.trim())) found.push(`${relative(ROOT, file)}:${i + 1}: ${comment.trim().slice(0, 100)}`);
        });
      }
    }
    expect(found).toEqual([]);
  });

  it('the check sees each kind of comment line, and not code', () => {
    expect(ISSUE.test(commentOf(' * as issue 18 asked') ?? '')).toBe(true);
    expect(ISSUE.test(commentOf('// (issue 9)') ?? '')).toBe(true);
    expect(ISSUE.test(commentOf('const x = 1; // issue 7') ?? '')).toBe(true);
    expect(commentOf("const text = 'issue 3';")).toBeNull();
  });
});
