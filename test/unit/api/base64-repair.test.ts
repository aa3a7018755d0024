import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, PdfInputError } from '../../../src/domain/errors';
import { Base64Bytes, decodePdfBase64 } from '../../../src/api/base64-repair';
import { decodePdfFieldToFile } from '../../../src/api/base64-to-file';
import { previewBytes } from '../../../src/signing/validation/pdf-header';
import { tempDir } from '../../helpers/temp-dir';

// A real PDF (cairo output, binary streams): its base64 holds '+' and '/' and ends in one '='.
const PDF_PATH = join(import.meta.dirname, '../../vectors/pdf/cairo.pdf');
const PDF = new Uint8Array(readFileSync(PDF_PATH));
const B64 = Buffer.from(PDF).toString('base64');
const RULE =
  'line breaks are repaired only when every line but the last has the same width, at most 76 characters, with LF or CRLF';

/** The raw-text preview every structural refusal ends with (CONTRACT: first 16 bytes received). */
const EXPECTED = '; expected base64 of a PDF, whose bytes start with "%PDF-")';
const RAW = ' (received "JVBERi0xLjUKJbXt"' + EXPECTED;

function wrap(text: string, width: number, eol = '\n'): string {
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += width) lines.push(text.slice(i, i + width));
  return lines.join(eol);
}
const toUrlSafe = (b64: string) => b64.replaceAll('+', '-').replaceAll('/', '_');

function pdfError(input: unknown): PdfInputError {
  try {
    decodePdfBase64(input);
  } catch (err) {
    expect(err).toBeInstanceOf(PdfInputError);
    return err as PdfInputError;
  }
  throw new Error('expected decodePdfBase64 to throw');
}

describe('decodePdfBase64: accepted input', () => {
  it('fixture sanity: the base64 has both "+" and "/" and one "=" of padding', () => {
    expect(B64).toMatch(/\+/);
    expect(B64).toMatch(/\//);
    expect(B64.endsWith('=') && !B64.endsWith('==')).toBe(true);
  });

  it('decodes strict base64 with no repairs', () => {
    expect(decodePdfBase64(B64)).toEqual({ pdf: PDF, repairs: [] });
  });

  it.each([
    ['data URI prefix', `data:application/pdf;base64,${B64}`, ['data-uri-prefix']],
    ['data URI prefix, upper case', `DATA:Application/PDF;Base64,${B64}`, ['data-uri-prefix']],
    ['MIME 76-column LF lines', wrap(B64, 76), ['line-breaks']],
    ['MIME 76-column CRLF lines', wrap(B64, 76, '\r\n'), ['line-breaks']],
    ['CRLF lines with a trailing CRLF', `${wrap(B64, 76, '\r\n')}\r\n`, ['line-breaks']],
    ['PEM 64-column LF lines', wrap(B64, 64), ['line-breaks']],
    ['one unwrapped line and a trailing newline', `${B64}\n`, ['line-breaks']],
    ['missing "=" padding', B64.replace(/=+$/, ''), ['padding']],
    ['URL-safe alphabet', toUrlSafe(B64), ['url-safe-alphabet']],
    ['base64 of base64', Buffer.from(B64).toString('base64'), ['double-encoded']],
  ])('repairs %s', (_name, input, repairs) => {
    expect(decodePdfBase64(input)).toEqual({ pdf: PDF, repairs });
  });

  it('adds two missing "=" and completes a half-padded tail', () => {
    const short = PDF.subarray(0, 7081); // 7081 = 3·2360 + 1: base64 ends in "=="
    const b64 = Buffer.from(short).toString('base64');
    expect(b64.endsWith('==')).toBe(true);
    expect(decodePdfBase64(b64.slice(0, -2))).toEqual({ pdf: short, repairs: ['padding'] });
    expect(decodePdfBase64(b64.slice(0, -1))).toEqual({ pdf: short, repairs: ['padding'] });
  });

  it('reads what coreutils base64 (76, LF) and openssl base64 (64, LF) write', () => {
    const gnu = execFileSync('base64', [PDF_PATH], { encoding: 'latin1' });
    const pem = execFileSync('openssl', ['base64', '-in', PDF_PATH], { encoding: 'latin1' });
    expect(gnu.split('\n')[0]!.length).toBe(76);
    expect(pem.split('\n')[0]!.length).toBe(64);
    expect(decodePdfBase64(gnu)).toEqual({ pdf: PDF, repairs: ['line-breaks'] });
    expect(decodePdfBase64(pem)).toEqual({ pdf: PDF, repairs: ['line-breaks'] });
    // `base64 f | base64`: both layers wrapped at 76, the common way to encode twice by accident.
    const twice = execFileSync('sh', ['-c', `base64 '${PDF_PATH}' | base64`], { encoding: 'latin1' });
    expect(decodePdfBase64(twice)).toEqual({ pdf: PDF, repairs: ['line-breaks', 'double-encoded'] });
  });

  it('applies every repair at once, and qpdf accepts the result', () => {
    const inner = wrap(toUrlSafe(B64).replace(/=+$/, ''), 64, '\r\n');
    const outer = wrap(toUrlSafe(Buffer.from(inner).toString('base64')).replace(/=+$/, ''), 76, '\r\n');
    const input = `data:application/pdf;base64,${outer}\r\n`;
    const { pdf, repairs } = decodePdfBase64(input);
    // Outer repairs first, then the inner layer's new ones: base64 of this ASCII text happens to
    // use neither '+' nor '/', so the URL-safe repair is the inner layer's.
    expect(repairs).toEqual(['data-uri-prefix', 'line-breaks', 'padding', 'double-encoded', 'url-safe-alphabet']);
    expect(pdf).toEqual(PDF);
    const dir = tempDir('b64-repair-');
    writeFileSync(join(dir, 'out.pdf'), pdf);
    const out = execFileSync('qpdf', ['--check', join(dir, 'out.pdf')], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    expect(out).toContain('PDF Version: 1.5');
    expect(out).toContain('No syntax or stream encoding errors found');
    expect(out).not.toMatch(/WARNING|error:/i);
  });

  it('returns a plain Uint8Array', () => {
    expect(Object.getPrototypeOf(decodePdfBase64(B64).pdf)).toBe(Uint8Array.prototype);
  });
});

describe('decodePdfBase64: line layouts that are refused', () => {
  const lines = wrap(B64, 76).split('\n');
  it.each([
    ['ragged lines', [...lines.slice(0, 3), lines[3]! + lines[4]!.slice(0, 4), lines[4]!.slice(4), ...lines.slice(5)].join('\n'),
      `pdf_base64 has lines of uneven width (line 4 has 80 characters, line 1 has 76); ${RULE}${RAW}`],
    ['80-column lines', wrap(B64, 80), `pdf_base64 is wrapped at 80 characters, wider than 76; ${RULE}${RAW}`],
    ['a last line longer than the others', `${wrap(B64.slice(0, 7600), 76)}\n${B64.slice(7600)}`,
      `pdf_base64 has a last line longer than the others (line 101 has 1844 characters, line 1 has 76); ${RULE}${RAW}`],
    ['LF and CRLF mixed', `${lines[0]}\r\n${lines.slice(1).join('\n')}`, `pdf_base64 mixes LF and CRLF line breaks; ${RULE}${RAW}`],
    ['an empty line', `${lines[0]}\n\n${lines.slice(1).join('\n')}`, `pdf_base64 has an empty line (line 2); ${RULE}${RAW}`],
    ['two trailing newlines', `${B64}\n\n`, `pdf_base64 has an empty line (line 2); ${RULE}${RAW}`],
    ['a leading newline', `\n${B64}`, `pdf_base64 has an empty line (line 1); ${RULE} (received "\\x0aJVBERi0xLjUKJbX"${EXPECTED}`],
    ['a CR without LF', `${lines[0]}\r${lines.slice(1).join('\r')}`, `pdf_base64 has a CR without LF at index 76; ${RULE}${RAW}`],
    ['spaces instead of line breaks', lines.join(' '),
      `pdf_base64 contains whitespace (U+0020 at index 76); ${RULE}, and no other whitespace is${RAW}`],
    ['a tab inside', `${B64.slice(0, 40)}\t${B64.slice(40)}`,
      `pdf_base64 contains whitespace (U+0009 at index 40); ${RULE}, and no other whitespace is${RAW}`],
    ['a trailing space', `${B64} `, `pdf_base64 contains whitespace (U+0020 at index 9444); ${RULE}, and no other whitespace is${RAW}`],
  ])('refuses %s', (_name, input, message) => {
    expect(pdfError(input).message).toBe(message);
  });
});

describe('decodePdfBase64: malformed base64 is refused', () => {
  it.each([
    ['both alphabets', `${B64.slice(0, 100)}-_${B64.slice(102)}`,
      'pdf_base64 mixes the standard (+ /) and URL-safe (- _) base64 alphabets; translating it would be a guess' + RAW],
    ['length ≡ 1 mod 4', `${B64.replace(/=+$/, '')}AA`,
      'pdf_base64 is not valid base64: 9445 base64 characters leave one character over (length ≡ 1 mod 4), which no padding completes' + RAW],
    ['too much padding', `${B64}=`, 'pdf_base64 ends with 2 "=" after 9443 base64 characters where 1 belong' + RAW],
    ['padding on a full quantum', `${B64.slice(0, 9440)}=`, 'pdf_base64 ends with 1 "=" after 9440 base64 characters where 0 belong' + RAW],
    ['padding in the middle', `${B64.slice(0, 8)}==${B64.slice(8)}`,
      'pdf_base64 has "=" padding inside the data (a base64 character follows it at index 10); padding may only end it (received "JVBERi0x==LjUKJb"' + EXPECTED],
    ['a bad character past the preview', `${B64.slice(0, 5000)}*${B64.slice(5001)}`,
      'pdf_base64 is not valid base64: "*" at index 5000 is outside the base64 alphabet' + RAW],
    ['a non-ASCII character', `${B64.slice(0, 300)}\u00e9${B64.slice(301)}`,
      'pdf_base64 is not valid base64: U+00E9 at index 300 is outside the base64 alphabet' + RAW],
    ['only padding', '====', 'pdf_base64 holds no base64 data (received "===="' + EXPECTED],
    ['only a newline', '\n', `pdf_base64 has an empty line (line 1); ${RULE} (received "\\x0a"${EXPECTED}`],
    ['an empty string', '', 'pdf_base64 is empty (received ""' + EXPECTED],
    ['a bare data URI prefix', 'data:application/pdf;base64,', 'pdf_base64 holds no base64 data (received ""' + EXPECTED],
  ])('refuses %s', (_name, input, message) => {
    expect(pdfError(input).message).toBe(message);
  });

  it.each([
    ['number', 42, 'number'],
    ['null', null, 'null'],
    ['array', ['JVBERi0='], 'an array'],
    ['byte array', new Uint8Array(PDF), 'object'],
  ])('refuses a %s as InvalidInputError naming the field', (_name, input, got) => {
    expect(() => decodePdfBase64(input)).toThrow(InvalidInputError);
    expect(() => decodePdfBase64(input)).toThrow(`pdf_base64 must be a string of base64, got ${got}`);
  });
});

describe('decodePdfBase64: not a PDF, with a 16-byte preview', () => {
  const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

  it('an HTML error page sent as is', () => {
    const html = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>';
    expect(pdfError(html).message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "<!DOCTYPE html><" where "%PDF-" was expected',
    );
  });

  it('an HTML error page base64-encoded: the preview is of the decoded bytes', () => {
    const html = '<!DOCTYPE html>\n<html lang="en">secret body text</html>';
    expect(pdfError(b64(html)).message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "<!DOCTYPE html>\\x0a" where "%PDF-" was expected',
    );
  });

  it('binary junk shows non-printable bytes as \\xNN', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe]);
    expect(pdfError(b64(png)).message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "\\x89PNG\\x0d\\x0a\\x1a\\x0a\\x00\\x00\\x00\\x0dIHDR" where "%PDF-" was expected',
    );
  });

  it('junk before %PDF- is refused, naming where the header is', () => {
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...PDF]);
    expect(pdfError(b64(withBom)).message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "\\xef\\xbb\\xbf%PDF-1.5\\x0a%\\xb5\\xed\\xae" where "%PDF-" was expected' +
        ' (the header appears at byte 3; data before it is not repaired)',
    );
  });

  it('raw text that is not base64 shows the raw input', () => {
    expect(pdfError('{"error":"upstream timeout","code":504}').message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "{"error":"upstre" where "%PDF-" was expected',
    );
    expect(pdfError('Zu früh: Datei fehlt').message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "Zu fr\\xc3\\xbch: Datei " where "%PDF-" was expected',
    );
  });

  it('a raw PDF sent without base64', () => {
    expect(pdfError(Buffer.from(PDF).toString('latin1')).message).toBe(
      'pdf_base64 holds a raw PDF, not base64: it starts with "%PDF-1.5\\x0a%\\xc2\\xb5\\xc3\\xad\\xc2\\xae"; send the file base64-encoded (expected base64 of a PDF, whose bytes start with "%PDF-")',
    );
  });

  it('text that only looks encoded twice', () => {
    const fake = `JVBERi0xLjUK${'!'.repeat(20)}`;
    expect(pdfError(b64(fake)).message).toBe(
      'pdf_base64 does not contain a PDF: it starts with "JVBERi0xLjUK!!!!" where "%PDF-" was expected;' +
        ' it looks base64-encoded twice, but the inner layer is not valid base64',
    );
  });

  it('never puts more than 16 bytes of the document in the message', () => {
    const doc = `NOT A PDF ${'confidential '.repeat(20)}`;
    const message = pdfError(b64(doc)).message;
    expect(message).toBe('pdf_base64 does not contain a PDF: it starts with "NOT A PDF confid" where "%PDF-" was expected');
    expect(message).not.toContain('confidential');
  });
});

describe('previewBytes', () => {
  it('keeps printable ASCII, escapes the rest as lowercase \\xNN, stops at max', () => {
    expect(previewBytes(Uint8Array.from([0x1f, 0x20, 0x41, 0x7e, 0x7f, 0xab]))).toBe('\\x1f A~\\x7f\\xab');
    expect(previewBytes(new TextEncoder().encode('0123456789abcdefXYZ'))).toBe('0123456789abcdef');
    expect(previewBytes(new TextEncoder().encode('0123456789'), 4)).toBe('0123');
    expect(previewBytes(new Uint8Array(0))).toBe('');
  });
});

describe('spec §7 rule 2: every refusal names the first bytes received and the expected %PDF- start', () => {
  const B = Buffer.from('%PDF-1.7\n' + 'x'.repeat(300)).toString('base64');
  it.each([
    ['text that is not base64', 'this is definitely not base64!'],
    ['text with a bad character late', 'this is definitely not base64 at all, really not!'],
    ['ragged lines', `${B.slice(0, 76)}\n${B.slice(76, 140)}\n${B.slice(140)}`],
    ['whitespace', `${B.slice(0, 10)} ${B.slice(10)}`],
    ['mixed alphabets', `${B.slice(0, 8)}+_${B.slice(10)}`],
    ['bad padding', `${B}==`],
    ['an empty string', ''],
    ['only padding', '===='],
    ['a non-PDF decoded', Buffer.from('PK\x03\x04 a zip file').toString('base64')],
    ['a raw PDF', '%PDF-1.7 raw'],
    ['double-encoded junk', Buffer.from(Buffer.from('JVBERi0 not base64 !').toString('latin1')).toString('base64')],
  ])('%s', (_name, input) => {
    const message = pdfError(input).message;
    expect(message).toContain('"%PDF-"');
    expect(message).toMatch(/(received|starts with) "/);
  });
});

describe('canonical base64 (the fast path)', () => {
  it('decodes exactly what Node does, with no repair, for every length mod 3 (property)', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (tail) => {
        const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(tail)]);
        const r = decodePdfBase64(bytes.toString('base64'));
        expect(Buffer.from(r.pdf).equals(bytes)).toBe(true);
        expect(r.repairs).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes the bytes of a large JSON string chunk by chunk, as the text would be; anything else as text', async () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(9 * 1024 * 1024 + 7, 0xa5)]); // several 1 MiB chunks
    const b64 = bytes.toString('base64');
    const r = decodePdfBase64(await (await Base64Bytes.of(Buffer.from(b64, 'latin1')))!.decode());
    expect(r.repairs).toEqual([]);
    expect(Buffer.from(r.pdf).equals(bytes)).toBe(true);
    // Unpadded, encoded twice, or no PDF: the same answers as for the text.
    const short = Buffer.from('%PDF-1.7\nsmall').toString('base64'); // 20 characters: padded
    for (const text of [short.replace(/=+$/, ''), Buffer.from(short).toString('base64'), Buffer.from('not a pdf at all').toString('base64')]) {
      let viaText: unknown;
      let viaBytes: unknown;
      try {
        viaText = decodePdfBase64(text);
      } catch (e) {
        viaText = (e as Error).message;
      }
      try {
        viaBytes = decodePdfBase64(await (await Base64Bytes.of(Buffer.from(text, 'latin1')))!.decode());
      } catch (e) {
        viaBytes = (e as Error).message;
      }
      expect(JSON.stringify(viaBytes, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v))).toBe(JSON.stringify(viaText, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v)));
    }
  });

  it('decodes canonical base64 of a PDF into a file, chunk by chunk; anything else is left to decodePdfField', async () => {
    const dir = tempDir('localsign-b64-file-');
    try {
      const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(9 * 1024 * 1024 + 7, 0xa5)]);
      const path = join(dir, 'upload.tmp');
      const r = await decodePdfFieldToFile(await Base64Bytes.of(Buffer.from(bytes.toString('base64'), 'latin1')), path);
      expect(r).toEqual({ pdf: { $file: path, length: bytes.length }, repairs: [] });
      expect(readFileSync(path).equals(bytes)).toBe(true);
      // Unpadded, encoded twice, not a PDF: decoded in memory with decodePdfField's answers; no file.
      const other = join(dir, 'other.tmp');
      const short = Buffer.from('%PDF-1.7\nsmall').toString('base64');
      const unpadded = await decodePdfFieldToFile(await Base64Bytes.of(Buffer.from(short.replace(/=+$/, ''), 'latin1')), other);
      expect(unpadded.repairs).toEqual(['padding']);
      expect(Buffer.from(unpadded.pdf as Uint8Array).toString()).toBe('%PDF-1.7\nsmall');
      const twice = await decodePdfFieldToFile(await Base64Bytes.of(Buffer.from(Buffer.from(short).toString('base64'), 'latin1')), other);
      expect(twice.repairs).toEqual(['double-encoded']);
      await expect(decodePdfFieldToFile(await Base64Bytes.of(Buffer.from(Buffer.from('not a pdf at all').toString('base64'), 'latin1')), other)).rejects.toThrow(/does not contain a PDF/);
      expect(existsSync(other)).toBe(false);
      // A file that cannot be written (here: no such folder) is this request's error, never an uncaught one.
      await expect(decodePdfFieldToFile(await Base64Bytes.of(Buffer.from(bytes.toString('base64'), 'latin1')), join(dir, 'gone', 'x.tmp'))).rejects.toThrow(/ENOENT|no such file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes bytes as Base64Bytes only when every one is in the base64 alphabet, across chunks', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024, 0x41); // 'A' over nine 1 MiB chunks
    expect(await Base64Bytes.of(big)).not.toBeNull();
    for (const [at, byte] of [[0, 0x20], [4 * 1024 * 1024 + 3, 0x5c], [big.length - 1, 0x0a]] as const) {
      const bad = Buffer.from(big);
      bad[at] = byte;
      expect(await Base64Bytes.of(bad), `byte 0x${byte.toString(16)} at ${at}`).toBeNull();
    }
  });

  it('lets the event loop run while it checks and decodes a large field (the 140 MB of a 100 MB PDF held /health up for 0.7 s)', async () => {
    const b64 = Buffer.from(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(24 * 1024 * 1024, 0x5a)]).toString('base64'), 'latin1');
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 0);
    const checked = (await Base64Bytes.of(b64))!;
    // Checked at parse, decoded only when the document is wanted (after the request's other checks).
    expect(() => checked.canonical).toThrow(/decode\(\) must run/);
    const field = await checked.decode();
    clearInterval(timer);
    expect(field.canonical?.length).toBe(24 * 1024 * 1024 + 9);
    // 32 chunks checked and 32 decoded: timers ran between them, not once at the end.
    expect(turns).toBeGreaterThan(20);
  });

  it('leaves every near miss to the full check: padding inside, padding only, a stray character', () => {
    const b64 = Buffer.from('%PDF-1.7\nabcdefghijkl').toString('base64'); // 28 characters, no padding
    expect(() => decodePdfBase64(`${b64.slice(0, 8)}=${b64.slice(9)}`)).toThrow(/padding inside the data/);
    expect(() => decodePdfBase64('====')).toThrow(PdfInputError);
    expect(() => decodePdfBase64(`${b64.slice(0, 27)}\u0000`)).toThrow(/outside the base64 alphabet/);
    expect(decodePdfBase64(`${b64}\n`).repairs).toEqual(['line-breaks']);
  });
});
