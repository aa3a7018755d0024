import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without types
import { withoutHttp2 } from '../../../build/vendor/hono-without-http2.mjs';

const rewrite = withoutHttp2 as (source: string) => string;
const require = createRequire(import.meta.url);

describe('@hono/node-server without node:http2 (build/vendor/hono-without-http2.mjs)', () => {
  // The file esbuild bundles (the package's `import` entry); require resolves its CommonJS twin beside it.
  const file = join(dirname(require.resolve('@hono/node-server')), 'index.mjs');
  const source = readFileSync(file, 'utf8');

  it('the installed version loses its one node:http2 import and keeps every use of the two names', () => {
    const out = rewrite(source);
    expect(source).toContain('from "node:http2"');
    expect(out).not.toContain('node:http2');
    // Only the import line changed: the instanceof checks and the constant are still there.
    expect(out.split('instanceof Http2ServerRequest').length).toBe(source.split('instanceof Http2ServerRequest').length);
    expect(out).toContain('constants.NGHTTP2_NO_ERROR');
    expect(out).toMatch(/class Http2ServerRequest \{\}/);
  });

  it('the stand-ins: nothing is an HTTP/2 request, and the constant is nghttp2’s', async () => {
    const http = await import('node:http');
    const http2 = await import('node:http2');
    const local = new Function(`${rewrite('import { Http2ServerRequest, constants } from "node:http2";\n').replace(/^\/\/.*\n/m, '')} return { Http2ServerRequest, constants };`)() as { Http2ServerRequest: new () => object; constants: { NGHTTP2_NO_ERROR: number } };
    expect(local.constants.NGHTTP2_NO_ERROR).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(new http.IncomingMessage(null as never) instanceof local.Http2ServerRequest).toBe(false);
  });

  it('refuses a source that imports node:http2 otherwise, or twice', () => {
    expect(() => rewrite('import * as h2 from "node:http2";\n')).toThrow(/check build\/vendor\/hono-without-http2.mjs/);
    expect(() => rewrite(`${'import { Http2ServerRequest, constants } from "node:http2";\n'}require("node:http2");\n`)).toThrow(/no longer imports/);
  });
});
