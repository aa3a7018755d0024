import { Writable } from 'node:stream';

/**
 * A program run as a service, an installer's custom action or a scheduled task may have no usable
 * standard handles: under msiexec (wine) with pipes as its handles, opening process.stderr threw
 * `open EBADF` and `service install` died with exit 91; a handle open only for reading makes
 * each write fail later with an unhandled 'error' (exit 1 where a usage error is 2). The CLI then
 * writes nothing and still exits with the code its outcome deserves: a stream that cannot be
 * opened is replaced by one that drops what it is given, and write errors are dropped.
 */
export function tolerateUnusableStdio(proc: NodeJS.Process = process): void {
  for (const name of ['stdout', 'stderr'] as const) {
    let stream: NodeJS.WriteStream | undefined;
    try {
      stream = proc[name];
    } catch {
      stream = undefined;
    }
    if (!stream) {
      Object.defineProperty(proc, name, { value: dropAll(), configurable: true, enumerable: true, writable: true });
      continue;
    }
    stream.on('error', () => undefined);
  }
}

function dropAll(): NodeJS.WriteStream {
  return Object.assign(new Writable({ write: (_chunk, _encoding, done) => done() }), { isTTY: false, columns: 80, fd: -1 }) as unknown as NodeJS.WriteStream;
}
