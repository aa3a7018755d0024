/**
 * Name constraints (RFC 5280 §4.2.1.10, §6.1.3 (b)-(c), §6.1.4 (g)). Instead of computing the
 * intersection of permitted subtrees and the union of excluded ones, each CA's constraints are
 * kept and every later name is checked against each of them: a name is within an intersection
 * exactly when it is within every member, and outside a union when it is outside every member.
 */
import { bytesEqual, type Der } from '../der/der';
import { directoryNameOf, GENERAL_NAME, type NameConstraints } from '../der/x509-constraints';
import { formatName } from './distinguished-name';
import { attributeValues, isEmptyName, nameWithinSubtree } from './name-match';
import type { PathCertificate } from './path-certificate';

/** emailAddress (PKCS #9, 1.2.840.113549.1.9.1) as OID content octets. */
const EMAIL_ADDRESS = Uint8Array.of(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01);

const FORM_NAMES: Record<number, string> = {
  [GENERAL_NAME.otherName]: 'otherName',
  [GENERAL_NAME.rfc822Name]: 'rfc822Name',
  [GENERAL_NAME.dNSName]: 'dNSName',
  [GENERAL_NAME.x400Address]: 'x400Address',
  [GENERAL_NAME.directoryName]: 'directoryName',
  [GENERAL_NAME.ediPartyName]: 'ediPartyName',
  [GENERAL_NAME.uniformResourceIdentifier]: 'uniformResourceIdentifier',
  [GENERAL_NAME.iPAddress]: 'iPAddress',
  [GENERAL_NAME.registeredID]: 'registeredID',
};

/** A name to check: its form (a GeneralName tag) and how to show it. */
export interface CheckedName {
  form: number;
  name: Der;
  shown: string;
}

const ascii = (d: Der): string => Buffer.from(d.content).toString('latin1');

/** An iPAddress for failures: dotted IPv4, else hex groups. */
function ipText(b: Uint8Array): string {
  if (b.length === 4) return b.join('.');
  return Array.from({ length: b.length >> 1 }, (_, i) => ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16)).join(':');
}

/**
 * Host names against a constraint, case-insensitively (§7.2). A leading '.' means the hosts in that
 * domain, never the domain itself (§4.2.1.10 for URIs and rfc822Name). Without it, a dNSName
 * constraint also covers every name made by adding labels on the left, where a URI or mail host
 * constraint is that one host.
 */
function hostWithin(host: string, constraint: string, form: 'dns' | 'host'): boolean {
  const h = host.toLowerCase();
  const c = constraint.toLowerCase();
  if (c.length === 0) return true;
  if (c.startsWith('.')) return h.endsWith(c);
  return h === c || (form === 'dns' && h.endsWith(`.${c}`));
}

/**
 * §4.2.1.10 rfc822Name: a constraint with '@' is one mailbox; a host is every mailbox on it; a
 * leading '.' is every mailbox on a host in that domain. Local parts are case-sensitive (§7.5).
 */
function mailboxWithin(mailbox: string, constraint: string): boolean {
  const at = mailbox.lastIndexOf('@');
  if (at < 0) return false;
  const host = mailbox.slice(at + 1);
  if (!constraint.includes('@')) return hostWithin(host, constraint, 'host');
  const cAt = constraint.lastIndexOf('@');
  return mailbox.slice(0, at) === constraint.slice(0, cAt) && host.toLowerCase() === constraint.slice(cAt + 1).toLowerCase();
}

/** RFC 3986 §3.2.2 host of a URI with an authority, or null ("urn:…" and the like have none). */
export function uriHost(uri: string): string | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(uri);
  if (!m) return null;
  const authority = m[1]!.slice(m[1]!.lastIndexOf('@') + 1);
  if (authority.startsWith('[')) return null; // an IP literal is no DNS name
  const host = authority.replace(/:\d*$/, '');
  return host.length > 0 ? host : null;
}

/**
 * Whether `name` is within the subtree `base` (same form). null when the form is one this code
 * cannot judge, which §4.2.1.10 then makes a reason to refuse the certificate.
 */
export function withinSubtree(name: CheckedName, base: Der): boolean | null {
  switch (name.form) {
    case GENERAL_NAME.directoryName:
      return nameWithinSubtree(name.name, directoryNameOf(base));
    case GENERAL_NAME.rfc822Name:
      return mailboxWithin(ascii(name.name), ascii(base));
    case GENERAL_NAME.dNSName:
      // "any DNS name that can be constructed by simply adding zero or more labels to the left-hand side"
      return hostWithin(ascii(name.name), ascii(base), 'dns');
    case GENERAL_NAME.uniformResourceIdentifier: {
      // "the constraint applies to the host part of the name"; '.' + domain means hosts in it, not itself.
      const host = uriHost(ascii(name.name));
      return host !== null && hostWithin(host, ascii(base), 'host');
    }
    case GENERAL_NAME.iPAddress: {
      const [a, c] = [name.name.content, base.content];
      if (c.length !== a.length * 2) return false;
      return a.every((b, i) => ((b ^ c[i]!) & c[a.length + i]!) === 0);
    }
    default:
      return bytesEqual(name.name.raw, base.raw) ? true : null;
  }
}

/** The names §4.2.1.10 constrains: the subject (when not empty), its emailAddress values without a SAN, every SAN entry. */
export function namesOf(cert: PathCertificate): CheckedName[] {
  const out: CheckedName[] = [];
  const subject = cert.fields.subject;
  if (!isEmptyName(subject)) out.push({ form: GENERAL_NAME.directoryName, name: subject, shown: 'subject' });
  // "When constraints are imposed on the rfc822Name name form, but the certificate does not include a
  // subject alternative name, the rfc822Name constraint MUST be applied to the attribute of type
  // emailAddress in the subject distinguished name."
  if (!cert.altNames) {
    for (const v of attributeValues(subject, EMAIL_ADDRESS)) out.push({ form: GENERAL_NAME.rfc822Name, name: v, shown: `subject emailAddress ${ascii(v)}` });
  }
  for (const n of cert.altNames ?? []) {
    const form = n.tag;
    const name = form === GENERAL_NAME.directoryName ? directoryNameOf(n) : n;
    const text = form === GENERAL_NAME.directoryName ? ` ${formatName(name)}` : form === GENERAL_NAME.iPAddress ? ` ${ipText(n.content)}` : FORM_NAMES[form] ? ` ${ascii(n)}` : '';
    out.push({ form, name, shown: `subjectAltName ${FORM_NAMES[form] ?? `[${form & 0x1f}]`}${text}` });
  }
  return out;
}

/** Failures of `cert`'s names against one CA's constraints (`by` names the CA), one line each. */
export function checkNameConstraints(cert: PathCertificate, nc: NameConstraints, by: string): string[] {
  const failures: string[] = [];
  for (const n of namesOf(cert)) {
    const permitted = (nc.permitted ?? []).filter((b) => b.tag === n.form);
    const excluded = (nc.excluded ?? []).filter((b) => b.tag === n.form);
    const form = FORM_NAMES[n.form] ?? 'name';
    const judged = [...permitted, ...excluded].map((b) => withinSubtree(n, b));
    if (judged.includes(null)) {
      failures.push(`certificate ${cert.name}: ${n.shown} cannot be checked against the ${form} constraints of ${by}`);
      continue;
    }
    if (permitted.length > 0 && !judged.slice(0, permitted.length).includes(true)) {
      failures.push(`certificate ${cert.name}: ${n.shown} is not within the permitted ${form} subtrees of ${by}`);
    }
    if (judged.slice(permitted.length).includes(true)) failures.push(`certificate ${cert.name}: ${n.shown} is within an excluded ${form} subtree of ${by}`);
  }
  return failures;
}
