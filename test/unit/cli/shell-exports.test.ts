import { describe, expect, it } from 'vitest';
import { shellExportLines } from '../../../src/cli/shell-exports';

/** Issue 19: `serve --demo` printed bash `export` lines on Windows too. */
describe('copy-paste variable lines', () => {
  const vars: [string, string][] = [['BASE', 'http://127.0.0.1:8300'], ['LOCALSIGN_KEY', 'wrp_abc']];

  it('POSIX shells: export', () => {
    expect(shellExportLines(vars, 'linux')).toEqual(['  export BASE=http://127.0.0.1:8300', '  export LOCALSIGN_KEY=wrp_abc']);
    expect(shellExportLines(vars, 'darwin')).toEqual(shellExportLines(vars, 'linux'));
  });

  it('Windows: PowerShell $env: lines and cmd.exe set lines, no export', () => {
    const lines = shellExportLines(vars, 'win32');
    expect(lines).toEqual([
      '  PowerShell:',
      '    $env:BASE="http://127.0.0.1:8300"',
      '    $env:LOCALSIGN_KEY="wrp_abc"',
      '  cmd.exe:',
      '    set BASE=http://127.0.0.1:8300',
      '    set LOCALSIGN_KEY=wrp_abc',
    ]);
    expect(lines.join('\n')).not.toContain('export');
  });
});
