// @hono/node-server imports node:http2 at load for `instanceof Http2ServerRequest` checks and one
// constant: loading that module was 8 ms of the service's start (a CPU profile of `serve` on a
// 2-core machine), against a start-up budget of 150 ms. localsign listens with node:http only
// (src/service/server.ts), so no request it serves is an HTTP/2 one: the import is replaced by a
// class nothing is an instance of and the constant's value (nghttp2's NGHTTP2_NO_ERROR is 0).

/** The statement in @hono/node-server 2.x's dist/index.mjs. */
const IMPORT = 'import { Http2ServerRequest, constants } from "node:http2";\n';
const LOCAL =
  '// localsign: HTTP/1.1 only (build/vendor/hono-without-http2.mjs).\n' +
  'class Http2ServerRequest {}\n' +
  'const constants = { NGHTTP2_NO_ERROR: 0 };\n';

/**
 * `source` without its node:http2 import. Throws unless the statement is there exactly once and
 * nothing else names node:http2: another @hono/node-server is bundled as it is only after this is
 * looked at again.
 */
export function withoutHttp2(source) {
  const at = source.indexOf(IMPORT);
  if (at < 0 || source.split('node:http2').length !== 2) {
    throw new Error('@hono/node-server no longer imports node:http2 in one known statement: check build/vendor/hono-without-http2.mjs against the new version');
  }
  return source.slice(0, at) + LOCAL + source.slice(at + IMPORT.length);
}

/** The esbuild plugin for the service bundle. */
export const honoWithoutHttp2 = {
  name: 'hono-without-http2',
  setup(b) {
    b.onLoad({ filter: /[\\/]@hono[\\/]node-server[\\/]dist[\\/]index\.mjs$/ }, async (a) => {
      const { readFile } = await import('node:fs/promises');
      return { contents: withoutHttp2(await readFile(a.path, 'utf8')), loader: 'js' };
    });
  },
};
