import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalsignAnswerError, LocalsignServiceProofError } from '../../../clients/typescript/src/index';
import { failLine, printData } from '../../../src/cli/output';
import { escapeStrings } from '../../../src/log/escape';
import { describeReport } from '../../../src/signing/validation/verify-pdf';

/** Issue 15 "Terminal injection": what the CLI prints from documents and platforms. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'A\r\u001b[2K\u001b[1Aoverall: VALID\u202e\u009b\u2028';

function captureStdout(run: () => void): string {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe('printData --json', () => {
  it('is the same JSON value, with the characters JSON.stringify leaves raw (C1, DEL, U+2028/9, bidi) escaped', () => {
    const data = { name: HOSTILE, nested: [{ [`k${HOSTILE}`]: 'x\u007f' }] };
    const out = captureStdout(() => printData(true, data, () => 'unused'));
    expect(RAW.test(out), JSON.stringify(out)).toBe(false);
    expect(out).toContain('\\u202e');
    expect(out).toContain('\\u009b');
    expect(JSON.parse(out)).toEqual(data);
  });
});

describe('escapeStrings before a report is formatted', () => {
  it('every string, keys included, becomes the logs\' escaped text; numbers, booleans and null stay', () => {
    const report = { valid: false, signatures: [{ valid: false, field: HOSTILE, kind: 'signature', level: null, signer: { subject: `CN=${HOSTILE}` }, problems: [`quoted ${HOSTILE}`], byte_range: [0, 1, 2, 3] }] };
    const escaped = escapeStrings(report);
    expect(escaped.signatures[0]!.byte_range).toEqual([0, 1, 2, 3]);
    expect(escaped.signatures[0]!.field).toBe('A\\x0d\\x1b[2K\\x1b[1Aoverall: VALID\\u{202e}\\x9b\\u{2028}');
    const text = describeReport(escaped);
    expect(RAW.test(text)).toBe(false);
    expect(text.split('\n')).toEqual([
      '1. A\\x0d\\x1b[2K\\x1b[1Aoverall: VALID\\u{202e}\\x9b\\u{2028} (signature): INVALID - CN=A\\x0d\\x1b[2K\\x1b[1Aoverall: VALID\\u{202e}\\x9b\\u{2028}',
      '     - quoted A\\x0d\\x1b[2K\\x1b[1Aoverall: VALID\\u{202e}\\x9b\\u{2028}',
      'overall: INVALID',
    ]);
    // The report itself is not changed (--json prints it as the document has it).
    expect(report.signatures[0]!.field).toBe(HOSTILE);
  });
});

describe('failLine', () => {
  it('one line, with a quoted control sequence shown escaped and its colour codes removed', () => {
    let err = '';
    const stream = { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream;
    expect(failLine(new Error(`cannot read x\u001b[2K\u202e.pdf\u001b[31m: ENOENT\nsecond line`), stream)).toBe(1);
    expect(err).toBe('unexpected error: cannot read x\\x1b[2K\\u{202e}.pdf: ENOENT\n');
  });

  it('a peer that did not prove the service is exit 3 (the service is not there); a result that does not match its credential, exit 5', () => {
    let err = '';
    const stream = { write: (s: string) => ((err += s), true) } as unknown as NodeJS.WritableStream;
    expect(failLine(new LocalsignServiceProofError('http://127.0.0.1:8300', 200, 'missing', 'its 200 answer to GET /health carried no X-Localsign-Proof'), stream)).toBe(3);
    expect(failLine(new LocalsignAnswerError('req_1', 'cred', 's is not low'), stream)).toBe(5);
    expect(err.split('\n')).toEqual([
      'the peer at http://127.0.0.1:8300 did not prove it is the localsign service that holds this key: its 200 answer to GET /health carried no X-Localsign-Proof',
      'the result of req_1 does not match credential cred, so it was not used: s is not low',
      '',
    ]);
  });
});

describe('a verify line the document cannot stretch (issue 31)', () => {
  it('no-break and other spaces are shown escaped and a long field name is cut, so the real verdict stays in sight', () => {
    const field = `Sig1 (signature): VALID - CN=Bank${'\u00a0'.repeat(250)}`;
    const report = { valid: false, signatures: [{ valid: false, field, kind: 'signature', level: null, signer: null, problems: [] }] };
    const [line] = describeReport(escapeStrings(report)).split('\n');
    // Escaped first, then cut (an escape may be cut in the middle): the verdict follows at once.
    expect(line).toMatch(/^1\. Sig1 \(signature\): VALID - CN=Bank(\\xa0)+[\\xa0]*… \(signature\): INVALID - unknown signer$/);
    expect(line!.indexOf('INVALID')).toBeLessThan(110);
    expect(line).not.toContain('\u00a0');
    for (const ch of ['\u2007', '\u202f', '\u3000', '\u200b', '\ufeff', '\u00ad']) expect(escapeStrings(`a${ch}b`)).toMatch(/^a\\(x[0-9a-f]{2}|u\{[0-9a-f]+\})b$/);
  });
});
