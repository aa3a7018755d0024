import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { osErrorInWords } from '../../../src/domain/os-errors';

/** Issue 19: `cannot read nope.pdf: ENOENT` showed an errno instead of words. */
describe('an OS error in words', () => {
  const thrown = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e;
    }
    throw new Error('did not throw');
  };

  it('the errors Node really throws, in words with their code', () => {
    expect(osErrorInWords(thrown(() => readFileSync('/nonexistent/nope.pdf')))).toBe('no such file or folder (ENOENT)');
    expect(osErrorInWords(thrown(() => readFileSync('/')))).toBe('it is a folder, not a file (EISDIR)');
    expect(osErrorInWords(thrown(() => readFileSync('/etc/hostname/x')))).toBe('a part of the path is not a folder (ENOTDIR)');
  });

  it('a code it does not know, or no code: the message', () => {
    expect(osErrorInWords(Object.assign(new Error('odd failure'), { code: 'EWHATEVER' }))).toBe('odd failure');
    expect(osErrorInWords(new Error('plain'))).toBe('plain');
    expect(osErrorInWords('text')).toBe('text');
  });
});
