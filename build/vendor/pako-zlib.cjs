// pako for the vendor bundle, done by Node's zlib. pdf-lib compressed every stamp's font subset
// and content stream in JavaScript (pako.deflate: 5 % of the service's time for small PDFs,
// measured on a 2-core machine); its standard fonts inflate their metrics with pako.inflate.
// Both are RFC 1950 zlib streams, and 6 is the default level of both libraries.
// Every inflate of a stranger's data has an output cap: here it inflates only data shipped inside
// the vendored libraries (font metrics, fontkit's tables, well under 1 MiB), never a document's
// streams (src/pades/pdf/_stream-decode.ts decodes those under the document's budget), so the cap is
// the engine's per-stream one, 64 MiB, and zlib stops at it instead of growing without end.
'use strict';
const { deflateSync, inflateSync } = require('node:zlib');

const MAX_INFLATED = 64 * 1024 * 1024;

const bytes = (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

module.exports = {
  deflate: (data, options) => bytes(deflateSync(data, options && options.level !== undefined ? { level: options.level } : undefined)),
  inflate: (data, options) => {
    const out = inflateSync(data, { maxOutputLength: MAX_INFLATED });
    return options && options.to === 'string' ? out.toString('utf8') : bytes(out);
  },
};
