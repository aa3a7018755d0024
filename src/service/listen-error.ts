import type { Config } from '../config/config';
import { ConfigurationError } from '../domain/errors';

/**
 * The listener could not bind: one line naming the address and how to choose another (and, for
 * 8300, that it is also Consul's default port), instead of Node's "listen EADDRINUSE: address
 * already in use". Anything else passes through unchanged.
 */
export function describeListenError(error: unknown, config: Pick<Config, 'host' | 'port' | 'serviceFile'>): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const where = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const change = `choose another with --port N or LOCALSIGN_PORT=N${config.serviceFile ? ` (the installed service: "port" in ${config.serviceFile})` : ''}`;
  if (code === 'EADDRINUSE') {
    // Consul's agent also listens on 8300 by default: named only when that is the port asked for.
    const who = config.port === 8300 ? 'another localsign, or another program: Consul also defaults to 8300' : 'another localsign, or another program';
    return new ConfigurationError(`port ${config.port} is already in use on ${config.host} (${who}); ${change}`, { cause: error });
  }
  if (code === 'EACCES') return new ConfigurationError(`not allowed to listen on ${where} (ports below 1024 need privileges); ${change}`, { cause: error });
  if (code === 'EADDRNOTAVAIL') {
    return new ConfigurationError(`cannot listen on ${where}: no network interface has the address ${config.host}; choose another with --host or LOCALSIGN_HOST`, { cause: error });
  }
  return error;
}
