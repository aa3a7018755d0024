import { isIP } from 'node:net';

/**
 * Loopback as the service understands it: IPv4 127.0.0.0/8 (RFC 1122 §3.2.1.3), IPv6 ::1
 * (RFC 4291 §2.5.3), an IPv4-mapped loopback (::ffff:127.x.y.z, how a dual-stack socket shows an
 * IPv4 peer) and the name "localhost" (RFC 6761 §6.3: always loopback).
 */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (a === 'localhost') return true;
  const v4 = a.startsWith('::ffff:') ? a.slice(7) : a;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  if (isIP(a) === 6) return /^(0{0,4}:){2,7}0{0,3}1$/.test(a) || a === '::1';
  return false;
}
