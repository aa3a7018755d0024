import { win32 } from 'node:path';
import { describe, expect, it } from 'vitest';
import { windowsToolPath } from '../../../src/config/windows-tools';
import type { Runner } from '../../../src/install/run-command';
import { planService } from '../../../src/install/service-plan';
import { windowsManager } from '../../../src/install/windows-manager';
import { parseScState, quoteWindowsArg, scCreateArgs, windowsBinPath } from '../../../src/install/windows-service';

describe('Windows service (sc + shawl)', () => {
  it('quotes arguments as CommandLineToArgvW reads them', () => {
    expect(quoteWindowsArg('serve')).toBe('serve');
    expect(quoteWindowsArg('C:\\Program Files\\localsign\\localsign.exe')).toBe('"C:\\Program Files\\localsign\\localsign.exe"');
    expect(quoteWindowsArg('')).toBe('""');
    expect(quoteWindowsArg('a "b"')).toBe('"a \\"b\\""');
    // Backslashes before the closing quote are doubled, or the quote would be escaped.
    expect(quoteWindowsArg('C:\\my dir\\')).toBe('"C:\\my dir\\\\"');
  });

  it('the ImagePath: shawl beside the exe runs `localsign.exe serve`, told where the service file is', () => {
    const o = { exe: 'C:\\Program Files\\localsign\\localsign.exe', logDir: 'C:\\ProgramData\\localsign\\logs', serviceFile: 'C:\\ProgramData\\localsign\\service.json' };
    expect(windowsBinPath(o)).toBe(
      '"C:\\Program Files\\localsign\\shawl.exe" run --name localsign --stop-timeout 15000 --restart --log-dir C:\\ProgramData\\localsign\\logs ' +
        '--env LOCALSIGN_SERVICE_FILE=C:\\ProgramData\\localsign\\service.json -- "C:\\Program Files\\localsign\\localsign.exe" serve',
    );
    expect(scCreateArgs('create', o)).toEqual(['create', 'localsign', 'binPath=', windowsBinPath(o), 'start=', 'auto', 'DisplayName=', 'localsign local signing service']);
  });

  it('reads the state from sc query; none when the service does not exist', () => {
    expect(parseScState('SERVICE_NAME: localsign\n        TYPE               : 10  WIN32_OWN_PROCESS\n        STATE              : 4  RUNNING\n')).toBe('running');
    expect(parseScState('        STATE              : 1  STOPPED\n')).toBe('stopped');
    expect(parseScState('        STATE              : 2  START_PENDING\n')).toBe('starting');
    expect(parseScState('[SC] EnumQueryServicesStatus:OpenService FAILED 1060:\n')).toBe(null);
  });

  it('runs sc.exe by its full path under %SystemRoot% for every verb (issue 15: never a bare name the current directory could answer)', () => {
    const sc = windowsToolPath('sc', 'C:\\WINDOWS');
    expect(sc).toBe('C:\\WINDOWS\\System32\\sc.exe');
    const calls: string[] = [];
    let state = 1060; // no service yet, then created and stopped, then running
    const run: Runner = (cmd, args) => {
      calls.push(cmd);
      if (args[0] === 'query') return { code: state === 1060 ? 1060 : 0, stdout: state === 1060 ? '[SC] EnumQueryServicesStatus:OpenService FAILED 1060:\n' : `        STATE              : ${state}  X\n`, stderr: '' };
      if (args[0] === 'create') state = 1;
      if (args[0] === 'start') state = 4;
      if (args[0] === 'stop') state = 1;
      return { code: 0, stdout: '', stderr: '' };
    };
    const plan = planService({ platform: 'win32', scope: 'system', exec: ['C:\\Program Files\\localsign\\localsign.exe'], port: 8300, userHome: 'C:\\Users\\a', programData: 'C:\\ProgramData', serviceFilePath: 'C:\\ProgramData\\localsign\\service.json' });
    const manager = windowsManager('C:\\ProgramData\\localsign\\logs', sc);
    manager.register(plan, run);
    manager.start(plan, run, false);
    manager.stop(plan, run);
    manager.unregister(plan, run);
    expect(calls.length).toBeGreaterThan(6);
    expect(new Set(calls)).toEqual(new Set([sc]));
    // The default: %SystemRoot% as config/env.ts reads it, else C:\Windows; absolute either way.
    const defaults: string[] = [];
    windowsManager('C:\\x').isInstalled(plan, (cmd) => (defaults.push(cmd), { code: 1060, stdout: '', stderr: '' }), false);
    expect(defaults).toHaveLength(1);
    expect(win32.isAbsolute(defaults[0]!) && defaults[0]!.endsWith('\\System32\\sc.exe')).toBe(true);
  });
});
