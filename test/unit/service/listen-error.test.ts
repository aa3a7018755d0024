import { describe, expect, it } from 'vitest';
import { describeListenError } from '../../../src/service/listen-error';
import { ConfigurationError } from '../../../src/domain/errors';

const busy = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8300'), { code: 'EADDRINUSE' });

describe('a listener that cannot bind', () => {
  it('a busy port: one line naming it and how to choose another', () => {
    const e = describeListenError(busy, { host: '127.0.0.1', port: 8300, serviceFile: null });
    expect(e).toBeInstanceOf(ConfigurationError);
    expect((e as Error).message).toBe('port 8300 is already in use on 127.0.0.1 (another localsign, or another program: Consul also defaults to 8300); choose another with --port N or LOCALSIGN_PORT=N');
  });

  it('another port: named, and Consul (whose default is 8300) is not', () => {
    const e = describeListenError(busy, { host: '127.0.0.1', port: 18400, serviceFile: null }) as Error;
    expect(e.message).toBe('port 18400 is already in use on 127.0.0.1 (another localsign, or another program); choose another with --port N or LOCALSIGN_PORT=N');
  });

  it('the installed service: also where its port is set', () => {
    const e = describeListenError(busy, { host: '127.0.0.1', port: 8300, serviceFile: '/etc/localsign/service.json' }) as Error;
    expect(e.message).toMatch(/; choose another with --port N or LOCALSIGN_PORT=N \(the installed service: "port" in \/etc\/localsign\/service\.json\)$/);
  });

  it('a privileged port and an address no interface has; anything else unchanged', () => {
    const denied = describeListenError(Object.assign(new Error('x'), { code: 'EACCES' }), { host: '::1', port: 80, serviceFile: null }) as Error;
    expect(denied.message).toBe('not allowed to listen on [::1]:80 (ports below 1024 need privileges); choose another with --port N or LOCALSIGN_PORT=N');
    const absent = describeListenError(Object.assign(new Error('x'), { code: 'EADDRNOTAVAIL' }), { host: '10.9.9.9', port: 8300, serviceFile: null }) as Error;
    expect(absent.message).toBe('cannot listen on 10.9.9.9:8300: no network interface has the address 10.9.9.9; choose another with --host or LOCALSIGN_HOST');
    const other = new Error('boom');
    expect(describeListenError(other, { host: '127.0.0.1', port: 1, serviceFile: null })).toBe(other);
  });
});
