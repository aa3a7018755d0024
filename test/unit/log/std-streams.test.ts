import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { tolerateUnusableStdio } from '../../../src/log/std-streams';

describe('tolerateUnusableStdio', () => {
  it('a standard stream that cannot be opened (EBADF, as under msiexec) becomes one that drops what it is given', async () => {
    const proc = {} as NodeJS.Process;
    const stdout = Object.assign(new EventEmitter(), { write: () => true });
    Object.defineProperty(proc, 'stdout', { get: () => stdout, configurable: true });
    Object.defineProperty(proc, 'stderr', {
      get: () => {
        throw Object.assign(new Error('open EBADF'), { code: 'EBADF' });
      },
      configurable: true,
    });
    tolerateUnusableStdio(proc);
    expect(() => proc.stderr.write('a red line\n')).not.toThrow();
    expect(proc.stderr.isTTY).toBe(false);
    // A stream that opens keeps its own write, and its later errors are no longer fatal.
    expect(proc.stdout.listenerCount('error')).toBe(1);
    await new Promise<void>((resolve) => proc.stderr.write('x', () => resolve()));
  });
});
