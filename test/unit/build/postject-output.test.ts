import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types
import { postjectLinesToShow } from '../../../build/postject-output.mjs';

/** Issue 19: the build printed nine postject warnings nobody can act on; real errors still show. */
describe("postject's stderr", () => {
  it('drops the known noise, as postject 1.0.0-alpha.6 prints it for Node 22 (Linux and Windows)', () => {
    const seen = [
      ...Array(8).fill("warning: Can't find string offset for section name '.note.100'"),
      "warning: Can't find string offset for section name '.note'",
      'warning: The signature seems corrupted!',
      '',
    ].join('\n');
    expect(postjectLinesToShow(seen)).toEqual([]);
  });

  it('keeps anything else, a warning about another section included', () => {
    const text = "warning: Can't find string offset for section name '.text'\nError: Could not find the sentinel NODE_SEA_FUSE in the binary\r\n";
    expect(postjectLinesToShow(text)).toEqual(["warning: Can't find string offset for section name '.text'", 'Error: Could not find the sentinel NODE_SEA_FUSE in the binary']);
  });
});
