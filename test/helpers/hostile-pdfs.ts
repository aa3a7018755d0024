/**
 * Hostile PDFs of issue 15 ("a second probe"), each a small generator returning the document's
 * bytes: the engine's unit tests (test/unit/pades/hostile-inputs.test.ts) and the end-to-end
 * tests against the running service use the same ones. Every document is otherwise well formed
 * (header, objects, a cross-reference section, trailer), so what it exercises is the one hostile
 * part and nothing else. Test-only: manyFieldsOneSignature reads a committed vector.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, deflateRawSync } from 'node:zlib';

const MiB = 1024 * 1024;
const VECTORS = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'pdf');

/** Appends objects at known offsets and ends the file with a table or a cross-reference stream. */
class PdfBuilder {
  private readonly parts: Buffer[] = [];
  private pos = 0;
  private readonly offsets = new Map<number, number>();

  constructor(head: Buffer | string = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n') {
    this.push(head);
  }

  get length(): number {
    return this.pos;
  }

  push(b: Buffer | string): void {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    this.parts.push(buf);
    this.pos += buf.length;
  }

  obj(num: number, ...body: (Buffer | string)[]): void {
    this.offsets.set(num, this.pos);
    this.push(`${num} 0 obj\n`);
    for (const b of body) this.push(b);
    this.push('\nendobj\n');
  }

  stream(num: number, dict: string, data: Buffer): void {
    this.obj(num, `<< ${dict} /Length ${data.length} >>\nstream\n`, data, '\nendstream');
  }

  /** A classic table (ISO 32000-1 §7.5.4) listing every object added, one subsection per run of numbers. */
  endWithTable(trailer: string): Uint8Array {
    const nums = [...this.offsets.keys()].sort((a, b) => a - b);
    let table = 'xref\n';
    if (nums[0] !== 0 && !trailer.includes('/Prev')) table += '0 1\n0000000000 65535 f\r\n';
    for (let i = 0; i < nums.length; ) {
      let j = i;
      while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
      table += `${nums[i]} ${j - i + 1}\n`;
      for (let k = i; k <= j; k++) table += `${String(this.offsets.get(nums[k]!)).padStart(10, '0')} 00000 n\r\n`;
      i = j + 1;
    }
    const at = this.pos;
    this.push(`${table}trailer\n<< ${trailer} >>\nstartxref\n${at}\n%%EOF\n`);
    return this.bytes();
  }

  /** Ends the file with `dict`/`data` as its only cross-reference section, a stream (§7.5.8). */
  endWithXrefStream(num: number, dict: string, data: Buffer): Uint8Array {
    const at = this.pos;
    this.stream(num, `/Type /XRef ${dict}`, data);
    this.push(`startxref\n${at}\n%%EOF\n`);
    return this.bytes();
  }

  bytes(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.parts));
  }
}

/** Catalog, page tree and one empty page: objects 1, 2, 3. */
function onePage(b: PdfBuilder, catalogExtra = ''): void {
  b.obj(1, `<< /Type /Catalog /Pages 2 0 R${catalogExtra} >>`);
  b.obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  b.obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>');
}

/**
 * A zlib stream (RFC 1950) inflating to about 1,000 times its own size of zero bytes: `mb` MB
 * of compressed data. Made from one deflated MiB of zeros ending in a full flush (RFC 1951 blocks
 * that refer to nothing before them), repeated, so a gigabyte of output costs no gigabyte here.
 */
export function flateBomb(mb: number): Buffer {
  const chunk = deflateRawSync(Buffer.alloc(MiB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const copies = Math.max(1, Math.round((mb * 1_000_000) / chunk.length));
  const total = copies * MiB;
  // Adler-32 of `total` zero bytes: s1 stays 1, s2 adds 1 per byte (RFC 1950 §8.2).
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((total % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array<Buffer>(copies).fill(chunk), deflateRawSync(Buffer.alloc(0)), adler]);
}

/** Bytes a flateBomb(mb) inflates to. */
export function flateBombSize(mb: number): number {
  const chunk = deflateRawSync(Buffer.alloc(MiB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  return Math.max(1, Math.round((mb * 1_000_000) / chunk.length)) * MiB;
}

/**
 * A one-page PDF (objects 1-3) whose only cross-reference section is an xref stream, object 4,
 * with `dict` after its /Type /XRef and `data` as its stream data (as written: add /Filter to
 * `dict` for compressed data). The building block of the xref cases below.
 */
export function xrefStreamPdf(dict: string, data: Uint8Array): Uint8Array {
  const b = new PdfBuilder();
  onePage(b);
  return b.endWithXrefStream(4, dict, Buffer.from(data));
}

/**
 * An xref stream with `/W [0 0 0]` (rows of zero bytes) and an `/Index` of about `indexBytes`
 * bytes of `0 1000000` pairs: before issue 15 a 10 KB /Index took 50 s (the loop never ends a
 * zero-width row early, so its cost is the /Index total). Answer: a quick 422.
 */
export function zeroWidthXref(indexBytes = 10_240): Uint8Array {
  const pair = '0 1000000 ';
  const index = pair.repeat(Math.max(1, Math.floor(indexBytes / pair.length))).trim();
  return xrefStreamPdf(`/Size 5 /Root 1 0 R /W [0 0 0] /Index [${index}]`, Buffer.alloc(0));
}

/**
 * An xref stream of a few hundred bytes whose `/Index` claims `total` rows, far more than its
 * data holds. The default is the probe's 318-byte file (`/W [0 0 0] /Index [0 20000000]`: +1.3 GB
 * and a 500 `RangeError: Map maximum size exceeded`); with non-zero `widths` the rows are real
 * but the four data bytes hold one. Answer: a quick 422.
 */
export function hugeIndexXref(widths: [number, number, number] = [0, 0, 0], total = 20_000_000): Uint8Array {
  return xrefStreamPdf(`/Size ${total} /Root 1 0 R /W [${widths.join(' ')}] /Index [0 ${total}]`, Buffer.from([1, 0, 0, 0]));
}

/**
 * A one-page PDF whose only cross-reference section is an xref stream of `mb` MB of FlateDecode
 * data inflating to about 1,000 times that (a 1 MB bomb took the service to 3.2 GB).
 * Answer: 422 "document too complex: decoded stream data over … MiB".
 */
export function flateBombXref(mb = 1): Uint8Array {
  return xrefStreamPdf('/Size 5 /Root 1 0 R /W [1 4 1] /Filter /FlateDecode', flateBomb(mb));
}

/**
 * A one-page PDF whose catalog /DSS lists the same bomb stream (`mb` MB of FlateDecode data,
 * about 1,000 times that inflated) `times` times under /Certs, /OCSPs and /CRLs in turn (decoded
 * once per mention before issue 15: three times, 5.2 GB). Objects: 1-3 the page, 4 the DSS,
 * 5 the bomb. Answer: 422 over the stream cap; a stream under the cap is decoded once.
 */
export function dssRepeatedBomb(mb = 1, times = 3): Uint8Array {
  const keys = ['Certs', 'OCSPs', 'CRLs'];
  const lists = keys.map((key, k) => {
    const n = Math.floor(times / 3) + (k < times % 3 ? 1 : 0);
    return n > 0 ? `/${key} [${'5 0 R '.repeat(n).trim()}]` : '';
  });
  const b = new PdfBuilder();
  onePage(b, ' /DSS 4 0 R');
  b.obj(4, `<< /Type /DSS ${lists.join(' ')} >>`);
  b.stream(5, '/Filter /FlateDecode', flateBomb(mb));
  return b.endWithTable('/Size 6 /Root 1 0 R');
}

/**
 * test/vectors/pdf/mutool-signed.pdf (signed by mutool, adbe.pkcs7.detached: object 7 is its
 * signature dictionary, field 6 its field) plus an incremental update adding `n` signature fields
 * whose /V is that same dictionary 7 0 R (2,000 such fields took 31 s; 200 gave a 15 MB answer).
 * Field i is named `Copy i`. Answer: one validated signature listing n + 1 field names.
 */
export function manyFieldsOneSignature(n = 2000): Uint8Array {
  return updateMutoolSigned(n, (i) => `<< /FT /Sig /T (Copy ${i + 1}) /V 7 0 R /Rect [0 0 0 0] /F 132 >>`);
}

/**
 * test/vectors/pdf/mutool-signed.pdf plus an update adding `n` signature fields, each with its
 * own copy of the signature dictionary (object 7): n + 1 signatures to validate, one more than
 * the 200 validated per document when n = 200. Answer: a quick 422 naming the limit.
 */
export function manySignatureDictionaries(n = 200): Uint8Array {
  const signed = readFileSync(join(VECTORS, 'mutool-signed.pdf')).toString('latin1');
  const at = signed.lastIndexOf('\n7 0 obj\n') + '\n7 0 obj\n'.length;
  const sigDict = signed.slice(at, signed.indexOf('\nendobj', at));
  return updateMutoolSigned(n, (i, first) => `<< /FT /Sig /T (Signature ${i + 2}) /V ${first + n + i} 0 R /Rect [0 0 0 0] /F 132 >>`, sigDict);
}

/** mutool-signed.pdf plus one update: a new catalog listing field 6 and `n` new fields (objects 8…), and `n` copies of `extra` after them when given. */
function updateMutoolSigned(n: number, field: (i: number, first: number) => string, extra?: string): Uint8Array {
  const signed = readFileSync(join(VECTORS, 'mutool-signed.pdf'));
  const tail = signed.subarray(Math.max(0, signed.length - 64)).toString('latin1');
  const prev = Number(/startxref\s+(\d+)/.exec(tail)![1]);
  const b = new PdfBuilder(signed[signed.length - 1] === 0x0a ? signed : Buffer.concat([signed, Buffer.from('\n')]));
  const first = 8;
  const refs = Array.from({ length: n }, (_, i) => `${first + i} 0 R`);
  b.obj(1, `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R ${refs.join(' ')}] /SigFlags 3 >> >>`);
  for (let i = 0; i < n; i++) b.obj(first + i, field(i, first));
  if (extra !== undefined) for (let i = 0; i < n; i++) b.obj(first + n + i, extra);
  return b.endWithTable(`/Size ${first + n * (extra === undefined ? 1 : 2)} /Root 1 0 R /Prev ${prev}`);
}

/**
 * A one-page PDF whose catalog holds `/Deep` arrays nested `depth` deep: the parser recurses
 * once per level, and past the stack a RangeError is thrown. Answer: a 422 ("document too
 * complex"), never a 500.
 */
export function deeplyNested(depth = 200_000): Uint8Array {
  const b = new PdfBuilder();
  b.obj(1, '<< /Type /Catalog /Pages 2 0 R /Deep ', '['.repeat(depth), ']'.repeat(depth), ' >>');
  b.obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  b.obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>');
  return b.endWithTable('/Size 4 /Root 1 0 R');
}

/**
 * A one-page PDF whose catalog carries `/Many [0 0 0 …]`, an array of `count` numbers: two bytes
 * each in the file, an object each in the reader's heap. 10 million (20 MB) took a PDF worker to
 * its heap limit (growing one array, which would abort a worker thread's whole process:
 * handles.ts). Answer: 422 over the objects a document may have read; 900,000, under that
 * count, still outgrow a small heap (the heap-limit test).
 */
export function hugeArrayInCatalog(count = 10_000_000): Uint8Array {
  const b = new PdfBuilder();
  b.obj(1, '<< /Type /Catalog /Pages 2 0 R /Many [', Buffer.alloc(count * 2, '0 '), '] >>');
  b.obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  b.obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>');
  return b.endWithTable('/Size 4 /Root 1 0 R');
}

/**
 * A one-page PDF whose catalog carries `/Junk <…>`, a hex string of `mb` MiB of digits (pdf-lib
 * built it one character at a time: 200 MB through the sign route killed the process, heap out
 * of memory; 50 MB needed 2.95 GB). Answer: read in linear time and memory; the PDF is fine.
 */
export function hugeHexStringInCatalog(mb = 50): Uint8Array {
  const b = new PdfBuilder();
  b.obj(1, '<< /Type /Catalog /Pages 2 0 R /Junk <', Buffer.alloc(Math.round(mb * MiB), 0x61), '> >>');
  b.obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  b.obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>');
  return b.endWithTable('/Size 4 /Root 1 0 R');
}

/**
 * A one-page PDF with one signature field (object 4, `Signature1`) whose dictionary (object 5)
 * has `contentsHex` as /Contents and a /ByteRange skipping exactly it (ISO 32000-1 §12.8.1):
 * the shape a verifier reads, whatever the hex holds.
 */
export function signatureShapedPdf(contentsHex: Buffer): Uint8Array {
  const placeholder = '[0 0000000000 0000000000 0000000000]';
  const b = new PdfBuilder();
  b.obj(1, '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >> >>');
  b.obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  b.obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Annots [4 0 R] >>');
  b.obj(4, '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature1) /V 5 0 R /Rect [0 0 0 0] /F 132 /P 3 0 R >>');
  const sigStart = b.length + '5 0 obj\n'.length;
  const head = `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /ByteRange ${placeholder} /Contents <`;
  b.obj(5, head, contentsHex, '> >>');
  const pdf = Buffer.from(b.endWithTable('/Size 6 /Root 1 0 R'));
  const gapStart = sigStart + head.length - 1;
  const gapEnd = gapStart + contentsHex.length + 2;
  const pad = (v: number) => String(v).padStart(10, '0');
  const br = `[0 ${pad(gapStart)} ${pad(gapEnd)} ${pad(pdf.length - gapEnd)}]`;
  pdf.write(br, pdf.indexOf(placeholder, sigStart), 'latin1');
  return new Uint8Array(pdf);
}

/**
 * A signature whose /Contents is `mb` MiB of hex digits: a DER SEQUENCE header and zeros (verify
 * of a 100 MB /Contents reached 3.75 GB). Answer: read in linear time; the signature is reported
 * as not a readable CMS.
 */
export function hugeSignatureContents(mb = 100): Uint8Array {
  const hex = Buffer.alloc(Math.round(mb * MiB) & ~1, 0x30);
  hex.write('3084', 0, 'latin1');
  return signatureShapedPdf(hex);
}

/** X.690 §8.1.3 definite length. */
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer) => Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);

/**
 * A CMS ContentInfo (RFC 5652 §3) whose contentType OID is `kb` KiB of content bytes, one arc
 * of 0x81 continuation bytes (X.690 §8.19.2), and an empty [0] content. The decoder shifted a
 * BigInt per byte: 400 KB took 66 s.
 */
export function hugeOidContentInfo(kb = 400): Buffer {
  const arc = Buffer.alloc(Math.round(kb * 1024), 0x81);
  arc[0] = 0x2a; // 1.2, then the huge arc
  arc[arc.length - 1] = 0x01;
  return tlv(0x30, Buffer.concat([tlv(0x06, arc), tlv(0xa0, tlv(0x30, Buffer.alloc(0)))]));
}

/** A signed-shaped PDF whose CMS contentType OID is `kb` KiB (hugeOidContentInfo). Answer: the signature is reported unreadable, in milliseconds. */
export function cmsWithHugeOid(kb = 400): Uint8Array {
  return signatureShapedPdf(Buffer.from(hugeOidContentInfo(kb).toString('hex'), 'latin1'));
}

/**
 * A small page (about 15 KB) that is slow to read for a stamp's place: its content draws a form
 * `fanout` times, which draws the next form `fanout` times, `levels` deep. Every step is bounded,
 * so it is signed in the end, but it holds a PDF worker for seconds (about 3 s for 10 x 8 on the
 * 2-core VM): what one application's slow documents do to everyone's signing.
 */
export function nestedFormsPdf(levels = 10, fanout = 8): Uint8Array {
  const b = new PdfBuilder();
  b.obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  b.obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  b.obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /XObject << /X 5 0 R >> >> >>');
  const draw = Array.from({ length: fanout }, (_, i) => `q 1 0 0 1 ${i} ${i} cm /X Do Q`).join(' ');
  b.stream(4, '', Buffer.from(draw));
  for (let l = 0; l < levels; l++) {
    const last = l === levels - 1;
    const resources = last ? '' : `/Resources << /XObject << /X ${6 + l} 0 R >> >>`;
    b.stream(5 + l, `/Type /XObject /Subtype /Form /BBox [0 0 595 842] ${resources}`, Buffer.from(last ? '10 10 5 5 re f' : draw));
  }
  return b.endWithTable(`/Size ${5 + levels} /Root 1 0 R`);
}
