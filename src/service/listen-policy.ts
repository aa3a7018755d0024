import type { Config } from '../config/config';
import { isLoopbackAddress } from '../config/loopback';
import { ConfigurationError } from '../domain/errors';

/**
 * The listeners beyond loopback that a configuration may not open without saying so: checked
 * before anything starts (`serve` starts its workers right after, service/server.ts before it
 * listens).
 */
export function refuseUnsafeListen(config: Pick<Config, 'host' | 'allowRemote' | 'receiveListen'>): void {
  // `--host 0.0.0.0` would bind every interface without a word. Beyond loopback the API
  // (wrapper secrets in clear text, no TLS) is reachable from the network: only on purpose.
  if (!isLoopbackAddress(config.host) && !config.allowRemote) {
    throw new ConfigurationError(`--host ${config.host} is not a loopback address; to listen beyond loopback on purpose add --allow-remote (and --allow-host with the name remote callers use)`);
  }
  // The same rule for the push listener. It serves only POST /receive (HMAC of the agent
  // secret), but beyond loopback it is still a door from the network: opened on purpose only.
  const receive = config.receiveListen;
  if (receive && !isLoopbackAddress(receive.host) && !config.allowRemote) {
    const where = `${receive.host.includes(':') ? `[${receive.host}]` : receive.host}:${receive.port}`;
    throw new ConfigurationError(`--receive-listen ${where} is not a loopback address; to receive platform pushes from the network on purpose add --allow-remote`);
  }
}
