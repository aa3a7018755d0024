import { describe, expect, it } from 'vitest';
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
});
