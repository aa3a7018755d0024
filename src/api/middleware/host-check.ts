import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { isLoopbackAddress } from '../../config/loopback';
import { LocalsignError } from '../../domain/errors';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Host header without its port; IPv6 literals keep their brackets. Lowercase (CONTRACT). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

function urlAuthority(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The peer's address under @hono/node-server; undefined without a socket (app.request in tests). */
function peerAddress(c: Context): string | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress;
}

/**
 * Loopback is not a boundary: a web page can reach 127.0.0.1 through DNS rebinding (its own name
 * resolving to 127.0.0.1) or send cross-origin requests. CONTRACT: any Host other than loopback
 * names and --allow-host gets 403, and so does any Origin not in --allow-origin; on every path.
 */
export function hostCheck(o: { allowHosts: readonly string[]; allowOrigins: readonly string[] }): MiddlewareHandler {
  const named = new Set(o.allowHosts.map((h) => h.toLowerCase()));
  const loopbackHosts = new Set([...LOOPBACK, ...named]);
  const origins = new Set(o.allowOrigins.map((x) => x.toLowerCase().replace(/\/$/, '')));
  return async (c, next) => {
    const host = c.req.header('host');
    // serve --allow-remote: a peer on another machine can send "Host: localhost" as easily as any
    // other name, so a loopback name proves nothing from there; it must use a name the operator
    // gave with --allow-host (hardening a non-loopback bind).
    const peer = peerAddress(c);
    const remote = peer !== undefined && !isLoopbackAddress(peer);
    const hosts = remote ? named : loopbackHosts;
    if (remote && (!host || !hosts.has(hostName(host)) || !hosts.has(hostName(urlAuthority(c.req.url))))) {
      throw new LocalsignError('forbidden', 'requests from another machine must name an --allow-host host in Host', { type: 'host' });
    }
    // RFC 9112 §3.2.2: an absolute-form request-target's authority replaces the Host header, and
    // @hono/node-server builds the request URL from it; so both must be served names.
    if (!host || !hosts.has(hostName(host)) || !hosts.has(hostName(urlAuthority(c.req.url)))) {
      throw new LocalsignError('forbidden', 'this Host is not served; only loopback names and --allow-host names are', { type: 'host' });
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !origins.has(origin.toLowerCase().replace(/\/$/, ''))) {
      throw new LocalsignError('forbidden', 'requests from this Origin are not accepted (see serve --allow-origin)', { type: 'origin' });
    }
    await next();
  };
}
