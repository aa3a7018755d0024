/**
 * X.509 and OCSP times (RFC 5280 §4.1.2.5: UTCTime YYMMDDHHMMSSZ through 2049, GeneralizedTime
 * YYYYMMDDHHMMSS[.fff]Z after; RFC 6960 uses GeneralizedTime only). Read as UTC dates.
 */
import { DerError, TAG, type Der } from './der';

export function decodeTime(node: Der | undefined, what: string): Date {
  if (!node || (node.tag !== TAG.UTC_TIME && node.tag !== TAG.GENERALIZED_TIME)) throw new DerError(`${what} is not a UTCTime or GeneralizedTime`);
  const text = Buffer.from(node.content).toString('latin1');
  const m = node.tag === TAG.UTC_TIME
    ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text)
    : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\.\d+)?Z$/.exec(text);
  if (!m) throw new DerError(`${what} "${text.slice(0, 24)}" is not a UTC time`);
  let year = Number(m[1]);
  // RFC 5280 §4.1.2.5.1: YY >= 50 is 19YY, else 20YY.
  if (node.tag === TAG.UTC_TIME) year += year >= 50 ? 1900 : 2000;
  const ms = m[7] ? Math.round(Number(`0${m[7]}`) * 1000) : 0;
  return new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms));
}
