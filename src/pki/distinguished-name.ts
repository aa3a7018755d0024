/**
 * X.501 Names: RFC 4514 string form for display, and DER encoding of the simple names we issue.
 */
import { InvalidInputError } from '../domain/errors';
import { children, decodeOid, expectTag, oid, seq, TAG, tlv, toHex, type Der } from '../der/der';

/** RFC 4514 §3 table, plus descriptors registered with IANA (§2.3 allows those). */
const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '2.5.4.9': 'STREET',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
  '2.5.4.4': 'SN',
  '2.5.4.42': 'GN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.12': 'title',
  '2.5.4.97': 'organizationIdentifier',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

function decodeString(value: Der): string | null {
  const b = Buffer.from(value.content);
  switch (value.tag) {
    case 0x0c: // UTF8String
    case 0x13: // PrintableString
    case 0x16: // IA5String
      return b.toString('utf8');
    case 0x14: // TeletexString: in practice Latin-1
      return b.toString('latin1');
    case 0x1e: // BMPString: UCS-2 big endian
      return b.swap16().toString('utf16le');
    case 0x1c: // UniversalString: UCS-4 big endian
      return String.fromCodePoint(...Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32BE(i * 4)));
    default:
      return null;
  }
}

/** RFC 4514 §2.4 escaping of a string value. */
function escapeValue(s: string): string {
  const chars = [...s];
  return chars
    .map((c, i) => {
      if ('"+,;<>\\'.includes(c)) return `\\${c}`;
      if (c === '\u0000') return '\\00';
      if ((i === 0 && (c === ' ' || c === '#')) || (i === chars.length - 1 && c === ' ')) return `\\${c}`;
      return c;
    })
    .join('');
}

function formatAttribute(atv: Der): string {
  const [type, value] = children(expectTag(atv, TAG.SEQUENCE, 'AttributeTypeAndValue'));
  const id = decodeOid(expectTag(type, TAG.OID, 'AttributeType').content);
  const name = SHORT_NAMES[id];
  const text = name && value ? decodeString(value) : null;
  // §2.4: dotted types and non-string values are written as '#' + hex of the BER encoding.
  if (text === null) return `${name ?? id}=#${toHex(value?.raw ?? new Uint8Array())}`;
  return `${name}=${escapeValue(text)}`;
}

/** RFC 4514 §2.1: RDNs in reverse order of the RDNSequence (most specific first), ',' separated. */
export function formatName(name: Der): string {
  return children(expectTag(name, TAG.SEQUENCE, 'Name'))
    .map((rdn) => children(expectTag(rdn, TAG.SET, 'RelativeDistinguishedName')).map(formatAttribute).join('+'))
    .reverse()
    .join(',');
}

export interface SimpleName {
  CN: string;
  O?: string;
  C?: string;
}

/** One attribute per RDN, C, O, CN (most general first). C is PrintableString (RFC 5280 Appendix A). */
export function encodeName(n: SimpleName): Uint8Array {
  if (!n.CN) throw new InvalidInputError('certificate subject CN must not be empty');
  const rdn = (type: string, value: Uint8Array): Uint8Array => tlv(TAG.SET, seq(oid(type), value));
  const utf8 = (s: string): Uint8Array => tlv(TAG.UTF8_STRING, new TextEncoder().encode(s));
  const parts: Uint8Array[] = [];
  if (n.C !== undefined) {
    if (!/^[A-Z]{2}$/.test(n.C)) throw new InvalidInputError(`certificate country C must be two capital letters (ISO 3166), got "${n.C}"`);
    parts.push(rdn('2.5.4.6', tlv(TAG.PRINTABLE_STRING, new TextEncoder().encode(n.C))));
  }
  if (n.O) parts.push(rdn('2.5.4.10', utf8(n.O)));
  parts.push(rdn('2.5.4.3', utf8(n.CN)));
  return seq(...parts);
}
