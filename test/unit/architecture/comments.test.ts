/**
 * Comments in the shipped code say why in their own words, and cite the clause or the CONTRACT
 * line (AGENTS.md); the history of a line lives in `git log`. A comment that points at an issue
 * number sends the reader off to read the issue to learn the reason, and goes stale as the code
 * moves on. This test reads every source file under src/, build/ and clients/typescript/src/
 * with TypeScript's own parser, so it sees each comment (line, block, JSDoc, trailing) and never a
 * string literal, and refuses any that cites an issue. Clause citations (RFC, ISO, ETSI, PKCS #11,
 * UTS #39) and upstream bug links (nodejs/node#49047) are not issues, and a TODO may name the
 * issue that will remove it (STYLE.md: "A TODO names its issue"). The installer templates and
 * the CI script are read too, by their own comment markers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const SOURCES = ['src', 'build', 'clients/typescript/src'];
const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** "issue 18", "(issue 19)", "issues 12 and 14", "Issue #23", and a bare "#23" in prose. */
const ISSUE = /\b[Ii]ssues? #?\d+|(?<![\w/#&.-])(?<!\b(?:PKCS|UTS|TR) )#\d+\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE_FILE.test(entry.name) ? [path] : [];
  });
}

/** Every comment in `text`, found as trivia around the tokens of its syntax tree, with its first line. */
function comments(fileName: string, text: string): { line: number; text: string }[] {
  const kind = /\.(js|mjs|cjs)$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, { line: number; text: string }>();
  const collect = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      const line = file.getLineAndCharacterOfPosition(range.pos).line + 1;
      seen.set(range.pos, { line, text: text.slice(range.pos, range.end) });
    }
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(file)) visit(child);
  };
  collect(ts.getLeadingCommentRanges(text, 0));
  visit(file);
  // A run of `//` lines is one comment to its reader: joined, so a sentence may run across them.
  const joined: { line: number; text: string }[] = [];
  for (const comment of [...seen.values()].sort((a, b) => a.line - b.line)) {
    const last = joined.at(-1);
    const lastLine = last ? last.line + last.text.split('\n').length - 1 : -1;
    if (last && comment.text.startsWith('//') && last.text.startsWith('//') && comment.line === lastLine + 1) last.text += `\n${comment.text}`;
    else joined.push({ ...comment });
  }
  return joined;
}

/** A comment's lines without their markers (slashes, stars), joined by spaces, and where each starts. */
function prose(comment: string): { text: string; starts: number[] } {
  const lines = comment.split('\n').map((line) => line.replace(/^\s*(?:\/\/+|\/\*+|\*+(?!\/))?\s*/, '').replace(/\s*\*+\/\s*$/, ''));
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  return { text: lines.join(' '), starts };
}

/**
 * `file:line: text` for each citation of an issue in a comment of `text`, a citation broken across
 * two lines of the comment ("… issue" / "* 18)") included, one after a TODO left out; the line is
 * the one it starts on.
 */
function issueCitations(fileName: string, text: string): string[] {
  return comments(fileName, text).flatMap((comment) => {
    const { text: words, starts } = prose(comment.text);
    const lines = comment.text.split('\n');
    const todo = words.search(/\bTODO\b/);
    const hits = [...words.matchAll(new RegExp(ISSUE.source, 'g'))].filter((hit) => todo < 0 || hit.index < todo);
    return hits.map((hit) => {
      const i = starts.filter((start) => start <= hit.index).length - 1;
      return `${fileName}:${comment.line + i}: ${lines[i]!.trim()}`;
    });
  });
}

/** The installer templates and the CI script: shell and NSIS line comments, XML comments. */
const SCRIPTS = ['installers', '.ci'];

function scriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? scriptFiles(path) : [path];
  });
}

/**
 * `file:line: text` for each citation of an issue in a comment of a script or template: a run of
 * `#` lines (`;` in NSIS) read as one comment, and each `<!-- -->` block (WiX, plists).
 */
function scriptIssueCitations(fileName: string, text: string): string[] {
  const lines = text.split('\n');
  const marker = fileName.endsWith('.nsi') ? /^\s*;+\s?/ : /^\s*#(?!!)+\s?/;
  const found: string[] = [];
  const check = (first: number, body: string[]) => {
    const starts: number[] = [];
    let at = 0;
    for (const line of body) {
      starts.push(at);
      at += line.length + 1;
    }
    for (const hit of body.join(' ').matchAll(new RegExp(ISSUE.source, 'g'))) {
      const i = starts.filter((start) => start <= hit.index).length - 1;
      found.push(`${fileName}:${first + i + 1}: ${lines[first + i]!.trim()}`);
    }
  };
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i]!.includes('<!--')) {
      const first = i;
      while (i < lines.length - 1 && !lines[i]!.includes('-->')) i += 1;
      check(first, lines.slice(first, i + 1));
    } else if (marker.test(lines[i]!)) {
      const first = i;
      while (i + 1 < lines.length && marker.test(lines[i + 1]!)) i += 1;
      check(first, lines.slice(first, i + 1).map((line) => line.replace(marker, '')));
    }
  }
  return found;
}

describe('comments say why, not which issue asked (history is in git log)', () => {
  it('no comment in the installer templates or the CI script cites an issue number', () => {
    const found = SCRIPTS.flatMap((dir) => scriptFiles(resolve(ROOT, dir)).flatMap((path) => scriptIssueCitations(relative(ROOT, path), readFileSync(path, 'utf8'))));
    expect(found, 'say the reason in the comment itself; the issue is in git log').toEqual([]);
  });

  it('finds a citation in a shell run, an NSIS run and an XML block', () => {
    expect(scriptIssueCitations('postinst', ['#!/bin/sh', '# a reason (issue', '# 15: more)', 'echo "issue 3"'].join('\n')).map((hit) => hit.split(':')[1])).toEqual(['2']);
    expect(scriptIssueCitations('x.nsi', ['; why (issue 15;', '; more)', 'DetailPrint "#4"'].join('\n')).map((hit) => hit.split(':')[1])).toEqual(['1']);
    expect(scriptIssueCitations('x.wxs', ['<?xml?>', '<!--', '  the package (issue 19), for', '-->', '<Package/>'].join('\n')).map((hit) => hit.split(':')[1])).toEqual(['3']);
  });

  it('no comment under src/, build/ or clients/typescript/src/ cites an issue number', () => {
    const found = SOURCES.flatMap((dir) =>
      sourceFiles(resolve(ROOT, dir)).flatMap((path) => issueCitations(relative(ROOT, path), readFileSync(path, 'utf8'))),
    );
    expect(found, 'say the reason in the comment itself; the issue is in git log').toEqual([]);
  });

  it('finds a citation in every kind of comment, wherever it stands', () => {
    const text = [
      '// the pool starts warm (issue 18)',
      'const a = 1; // as issue 19 asked',
      '/* issues 12 and 14 */',
      '/**',
      ' * A block that',
      '   runs on without a star (Issue #23)',
      ' */',
      'function f() {',
      '  return `${a}`; /* see #41 */',
      '}',
      '// a reason, and then the pointer (issue',
      '// 15: more words)',
      '/**',
      ' * broken in a JSDoc block, issue',
      ' * 18).',
      ' */',
      '// end of file, issue 7',
    ].join('\n');
    expect(issueCitations('x.ts', text).map((hit) => hit.split(':')[1])).toEqual(['1', '2', '3', '6', '9', '11', '14', '17']);
  });

  it('leaves string literals, clause citations, upstream bug links and a TODO\'s issue alone', () => {
    const text = [
      "const message = 'fixed in issue 18'; // RFC 5652 §5.4",
      'const template = `issue ${1} and issue 2`;',
      '// PKCS#11 v2.40 §5.8, PKCS #9, UTS #39 §5.1, Unicode TR #9 §2.1',
      '/* only in the first Node 20 releases, nodejs/node#49047 */',
      '// an issuer (RFC 5280 §4.1.2.4) and 12 issues of a magazine',
      '// TODO(issue 31): drop this once the journal is versioned',
    ].join('\n');
    expect(issueCitations('x.ts', text)).toEqual([]);
    expect(issueCitations('x.mjs', text)).toEqual([]);
  });
});
