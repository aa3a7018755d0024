// pako for the vendor bundle, done by Node's zlib. pdf-lib compressed every stamp's font subset
// and content stream in JavaScript (pako.deflate: 5 % of the service's time for small PDFs,
// issue 10); its standard fonts inflate their metrics with pako.inflate. Both are RFC 1950 zlib
// streams, and 6 is the default level of both libraries.
'use strict';
const { deflateSync, inflateSync } = require('node:zlib');

const bytes = (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

module.exports = {
  deflate: (data, options) => bytes(deflateSync(data, options && options.level !== undefined ? { level: options.level } : undefined)),
  inflate: (data, options) => {
    const out = inflateSync(data);
    return options && options.to === 'string' ? out.toString('utf8') : bytes(out);
  },
};
