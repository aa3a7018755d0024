import { describe, expect, it } from 'vitest';
import { escapeControls, stringifyJsonLine } from '../../../src/log/escape';
import { createLogger } from '../../../src/log/logger';

describe('escapeControls', () => {
  it('shows C0, DEL, C1, line separators and bidi controls as escapes', () => {
    expect(escapeControls('a\u001b[31mb\r\nc\u0000\u007f\u009b')).toBe('a\\x1b[31mb\\x0d\\x0ac\\x00\\x7f\\x9b');
    expect(escapeControls('x\u202ey\u2066z\u2069\u2028')).toBe('x\\u{202e}y\\u{2066}z\\u{2069}\\u{2028}');
  });
  it('leaves printable text, accents and right-to-left letters alone', () => {
    const text = 'Zoë Müller — محمد עברית 名前 /v1/results?limit=5';
    expect(escapeControls(text)).toBe(text);
  });
});

describe('stringifyJsonLine', () => {
  it('is the same JSON value with no raw C1 or bidi control in the line', () => {
    const value = { path: '/\u009b31m\u202eevil\u001b', n: 1 };
    const line = stringifyJsonLine(value);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(line)).toEqual(value);
  });
});

describe('createLogger', () => {
  it('writes request text escaped to the console and to the file, one line each', () => {
    let console = '';
    let file = '';
    const log = createLogger({ stderr: { write: (s: string) => ((console += s), true) } as unknown as NodeJS.WritableStream, file: { append: (t) => (file += t) }, now: () => new Date(0) });
    log.error('GET /\u001b[31mred\r\n1970-01-01T00:00:00.000Z INFO forged -> 404');
    expect(console).toBe('GET /\\x1b[31mred\\x0d\\x0a1970-01-01T00:00:00.000Z INFO forged -> 404\n');
    expect(file).toBe('1970-01-01T00:00:00.000Z ERROR GET /\\x1b[31mred\\x0d\\x0a1970-01-01T00:00:00.000Z INFO forged -> 404\n');
  });
});
