/**
 * What the credentials API shows of a certificate (CONTRACT `GET /v1/credentials`): subject and
 * issuer as RFC 4514 strings, serial as lowercase hex, validity as ISO 8601 UTC.
 */
import { InvalidInputError } from '../domain/errors';
import { children, TAG, toHex, type Der } from '../der/der';
import { readCertificate } from '../der/certificate-fields';
import { formatName } from './distinguished-name';

export interface CertificateDescription {
  subject: string;
  issuer: string;
  serial: string;
  not_before: string;
  not_after: string;
}

/** RFC 5280 §4.1.2.5.1: UTCTime YY >= 50 means 19YY; both forms are in UTC ("Z"). */
function parseTime(t: Der | undefined): string {
  const s = t ? Buffer.from(t.content).toString('latin1') : '';
  const m =
    t?.tag === TAG.UTC_TIME
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?Z$/.exec(s)
      : t?.tag === TAG.GENERALIZED_TIME
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:\.\d+)?Z$/.exec(s)
        : null;
  if (!m) throw new InvalidInputError(`certificate validity time "${s}" is not a UTC time`);
  let year = Number(m[1]);
  if (t?.tag === TAG.UTC_TIME) year += year >= 50 ? 1900 : 2000;
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  return new Date(ms).toISOString();
}

/** Minimal positive hex: drop the 0x00 octets DER adds before a high bit (RFC 5280 §4.1.2.2). */
function serialHex(content: Uint8Array): string {
  let i = 0;
  while (i < content.length - 1 && content[i] === 0) i++;
  return toHex(content.subarray(i)) || '00';
}

export function describeCertificate(der: Uint8Array): CertificateDescription {
  try {
    const f = readCertificate(der);
    const [notBefore, notAfter] = children(f.validity);
    return {
      subject: formatName(f.subject),
      issuer: formatName(f.issuer),
      serial: serialHex(f.serial.content),
      not_before: parseTime(notBefore),
      not_after: parseTime(notAfter),
    };
  } catch (e) {
    if (e instanceof InvalidInputError) throw e;
    throw new InvalidInputError(`not a DER X.509 certificate: ${(e as Error).message}`, { cause: e });
  }
}
