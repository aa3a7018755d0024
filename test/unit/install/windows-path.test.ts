import { describe, expect, it } from 'vitest';
import type { CommandResult, Runner } from '../../../src/install/run-command';
import { addToSystemPath, parsePathValue, pathWith, pathWithout, removeFromSystemPath, SYSTEM_ENVIRONMENT_KEY } from '../../../src/install/windows-path';

const DIR = 'C:\\Program Files\\localsign';
const WINDOWS_PATH = '%SystemRoot%\\system32;%SystemRoot%;%SystemRoot%\\System32\\Wbem';

/** reg.exe recorded: `query` answers with the value held, `add` replaces it. */
function registry(initial: string | null, type = 'REG_EXPAND_SZ') {
  let value = initial;
  const calls: string[][] = [];
  const run: Runner = (cmd, args): CommandResult => {
    calls.push([cmd, ...args]);
    if (args[0] === 'query') {
      if (value === null) return { code: 1, stdout: '', stderr: 'ERROR: The system was unable to find the specified registry key or value.' };
      return { code: 0, stdout: `\r\n${SYSTEM_ENVIRONMENT_KEY}\r\n    Path    ${type}    ${value}\r\n\r\n`, stderr: '' };
    }
    value = args[args.indexOf('/d') + 1]!;
    type = args[args.indexOf('/t') + 1]!;
    return { code: 0, stdout: 'The operation completed successfully.', stderr: '' };
  };
  return { run, calls, value: () => value, type: () => type };
}

describe('localsign on the system PATH (issue 19)', () => {
  it('appends the folder once; an entry with another case or a trailing backslash counts as it', () => {
    expect(pathWith(WINDOWS_PATH, DIR)).toBe(`${WINDOWS_PATH};${DIR}`);
    expect(pathWith(`${WINDOWS_PATH};`, DIR)).toBe(`${WINDOWS_PATH};${DIR}`);
    expect(pathWith('', DIR)).toBe(DIR);
    expect(pathWith(`${WINDOWS_PATH};c:\\program files\\LOCALSIGN\\`, DIR)).toBe(`${WINDOWS_PATH};c:\\program files\\LOCALSIGN\\`);
    expect(pathWithout(`${WINDOWS_PATH};${DIR}\\;C:\\Tools`, DIR)).toBe(`${WINDOWS_PATH};C:\\Tools`);
    expect(pathWithout(WINDOWS_PATH, DIR)).toBe(WINDOWS_PATH);
  });

  it("reads reg.exe's answer, an empty value included", () => {
    expect(parsePathValue(`\r\n${SYSTEM_ENVIRONMENT_KEY}\r\n    Path    REG_EXPAND_SZ    ${WINDOWS_PATH}\r\n`)).toEqual({ type: 'REG_EXPAND_SZ', value: WINDOWS_PATH });
    expect(parsePathValue(`${SYSTEM_ENVIRONMENT_KEY}\n    Path    REG_SZ    \n`)).toEqual({ type: 'REG_SZ', value: '' });
    expect(parsePathValue('    PathExt    REG_SZ    .COM;.EXE\n')).toBe(null);
  });

  it('a Path longer than an NSIS string (1024) is written back whole, its type kept; removal restores it', () => {
    const long = Array.from({ length: 60 }, (_, i) => `C:\\Tools\\package-number-${i}\\bin`).join(';');
    expect(long.length).toBeGreaterThan(1024);
    const reg = registry(long);
    expect(addToSystemPath(DIR, reg.run, 'C:\\Windows\\System32\\reg.exe')).toBe(true);
    expect(reg.value()).toBe(`${long};${DIR}`);
    expect(reg.calls.at(-1)).toEqual(['C:\\Windows\\System32\\reg.exe', 'add', SYSTEM_ENVIRONMENT_KEY, '/v', 'Path', '/t', 'REG_EXPAND_SZ', '/d', `${long};${DIR}`, '/f']);
    expect(addToSystemPath(DIR, reg.run, 'reg')).toBe(false);
    expect(removeFromSystemPath(DIR, reg.run, 'reg')).toBe(true);
    expect(reg.value()).toBe(long);
    expect(removeFromSystemPath(DIR, reg.run, 'reg')).toBe(false);
    expect(reg.calls.filter((c) => c[1] === 'add')).toHaveLength(2);
  });

  it('a Path it cannot read is an error and nothing is written (a Path rebuilt from nothing would lose every entry)', () => {
    const reg = registry(null);
    expect(() => addToSystemPath(DIR, reg.run, 'reg')).toThrow(`could not read the system Path from ${SYSTEM_ENVIRONMENT_KEY} (reg: ERROR: The system was unable to find the specified registry key or value.); add the folder to Path yourself`);
    const odd: Runner = () => ({ code: 0, stdout: 'something else', stderr: '' });
    expect(() => removeFromSystemPath(DIR, odd, 'reg')).toThrow('(reg: something else)');
    expect(reg.calls.filter((c) => c[1] === 'add')).toEqual([]);
  });
});
