/**
 * Distinguished name comparison per RFC 5280 §7.1: attribute values of string types are compared
 * after RFC 4518 string preparation with case folding (so "Test CA", "test  ca" and a UTF8String
 * "TEST CA" match a PrintableString "Test CA"); other values byte for byte. RDNs match when they
 * hold the same number of attributes, each matching one of the other's; names when they hold the
 * same RDNs in the same order; a name is within a subtree when its leading RDNs match the base.
 * Matching values is an equivalence, so each name becomes a list of keys compared with ===.
 */
import { bytesEqual, children, DerError, expectTag, TAG, toHex, type Der } from '../der/der';
import { prepareCaseIgnore, transcode } from './_string-prep';

interface Attribute {
  type: Uint8Array;
  value: Der;
}

function attributesOf(rdn: Der): Attribute[] {
  return children(expectTag(rdn, TAG.SET, 'RelativeDistinguishedName')).map((atv) => {
    const [type, value] = children(expectTag(atv, TAG.SEQUENCE, 'AttributeTypeAndValue'));
    if (!value) throw new DerError('AttributeTypeAndValue has no value');
    return { type: expectTag(type, TAG.OID, 'AttributeType').content, value };
  });
}

/** The RDNs of a Name (RDNSequence), most general first as encoded. */
export function rdnsOf(name: Der): Der[] {
  return children(expectTag(name, TAG.SEQUENCE, 'Name'));
}

/**
 * The comparable form of an attribute value: its prepared string (RFC 4518) for string types, else
 * (another type, bad encoding, a prohibited code point) its encoding, which then matches only itself.
 */
function valueKey(v: Der): string {
  const text = transcode(v.tag, v.content);
  const prepared = text === null ? null : prepareCaseIgnore(text);
  return prepared === null ? `#${toHex(v.raw)}` : `"${prepared}`;
}

/** Two attribute values match: equal encodings, or equal prepared strings (§7.1, RFC 4518). */
export function valuesMatch(a: Der, b: Der): boolean {
  return bytesEqual(a.raw, b.raw) || valueKey(a) === valueKey(b);
}

/**
 * One key per RDN: its attributes as type and value key, sorted, since an RDN is a set. Two
 * names match exactly when their key lists are equal, so a name is prepared once, not once per
 * comparison. Null when the name does not parse.
 */
export function rdnKeys(name: Der): string[] | null {
  try {
    return rdnsOf(name).map((rdn) => JSON.stringify(attributesOf(rdn).map((a) => `${toHex(a.type)}=${valueKey(a.value)}`).sort()));
  } catch {
    return null;
  }
}

/** One string per name: equal for two names exactly when they match (§7.1); a name that does not parse matches only itself. */
export function nameKey(name: Der): string {
  const keys = rdnKeys(name);
  return keys === null ? `#${toHex(name.raw)}` : JSON.stringify(keys);
}

const sameKeys = (x: string[], y: string[]): boolean => x.length === y.length && x.every((k, i) => k === y[i]);

/** §7.1: same number of RDNs, matching in the same order. False for names that do not parse. */
export function namesMatch(a: Der, b: Der): boolean {
  if (bytesEqual(a.raw, b.raw)) return true;
  const x = rdnKeys(a);
  const y = rdnKeys(b);
  return x !== null && y !== null && sameKeys(x, y);
}

/** §7.1: `name` is within the subtree `base` when it has at least its RDNs and the leading ones match. */
export function nameWithinSubtree(name: Der, base: Der): boolean {
  const x = rdnKeys(name);
  const y = rdnKeys(base);
  return x !== null && y !== null && x.length >= y.length && sameKeys(x.slice(0, y.length), y);
}

/** The values of one attribute type in a Name, in order (e.g. emailAddress for §4.2.1.10). */
export function attributeValues(name: Der, typeContent: Uint8Array): Der[] {
  return rdnsOf(name).flatMap((rdn) => attributesOf(rdn).filter((a) => bytesEqual(a.type, typeContent)).map((a) => a.value));
}

/** True when the Name has no RDNs (§4.1.2.6: the subject is then in subjectAltName). */
export function isEmptyName(name: Der): boolean {
  return name.content.length === 0;
}
