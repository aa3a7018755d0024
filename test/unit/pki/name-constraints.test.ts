/**
 * Name constraints (RFC 5280 §4.2.1.10) form by form (pki/name-constraints.ts), and the names a
 * certificate is checked by, on PKITS certificates (../shared/vectors/pkits, outside data).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oid, readDerExact, seq, setOf, tlv, type Der } from '../../../src/der/der';
import { GENERAL_NAME, readNameConstraints } from '../../../src/der/x509-constraints';
import { checkNameConstraints, namesOf, uriHost, withinSubtree } from '../../../src/pki/name-constraints';
import { readPathCertificate } from '../../../src/pki/path-certificate';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';

const text = (tag: number, s: string): Der => readDerExact(tlv(tag, new TextEncoder().encode(s)));
const dns = (s: string): Der => text(GENERAL_NAME.dNSName, s);
const mail = (s: string): Der => text(GENERAL_NAME.rfc822Name, s);
const uri = (s: string): Der => text(GENERAL_NAME.uniformResourceIdentifier, s);
const ip = (...b: number[]): Der => readDerExact(tlv(GENERAL_NAME.iPAddress, Uint8Array.from(b)));
const within = (name: Der, base: Der): boolean | null => withinSubtree({ form: name.tag, name, shown: '' }, base);
const PKITS = outsideVectors('pkits');
const pkits = (file: string) => readPathCertificate(new Uint8Array(readFileSync(join(PKITS!, 'certs', `${file}.crt`))));

describe('dNSName', () => {
  it('covers the name and every name with labels added on the left, at a label boundary, in any case', () => {
    expect(within(dns('testcertificates.gov'), dns('testcertificates.gov'))).toBe(true);
    expect(within(dns('host.sub.TestCertificates.gov'), dns('testcertificates.GOV'))).toBe(true);
    expect(within(dns('mytestcertificates.gov'), dns('testcertificates.gov'))).toBe(false); // PKITS 4.13.38
    expect(within(dns('testcertificates.gov'), dns('.testcertificates.gov'))).toBe(false);
    expect(within(dns('a.testcertificates.gov'), dns('.testcertificates.gov'))).toBe(true);
    expect(within(dns('anything.example'), dns(''))).toBe(true);
  });
});

describe('rfc822Name', () => {
  it('a mailbox, every mailbox on a host, or every mailbox in a domain', () => {
    expect(within(mail('Test21EE@mailserver.testcertificates.gov'), mail('Test21EE@MailServer.testcertificates.gov'))).toBe(true);
    expect(within(mail('test21ee@mailserver.testcertificates.gov'), mail('Test21EE@mailserver.testcertificates.gov'))).toBe(false); // local parts are case-sensitive
    expect(within(mail('a@testcertificates.gov'), mail('testcertificates.gov'))).toBe(true);
    expect(within(mail('a@mailserver.testcertificates.gov'), mail('testcertificates.gov'))).toBe(false);
    expect(within(mail('a@mailserver.testcertificates.gov'), mail('.testcertificates.gov'))).toBe(true);
    expect(within(mail('a@testcertificates.gov'), mail('.testcertificates.gov'))).toBe(false);
    expect(within(mail('no-at-sign'), mail('testcertificates.gov'))).toBe(false);
  });
});

describe('uniformResourceIdentifier', () => {
  it('constrains the host: one host, or the hosts of a domain', () => {
    expect(uriHost('ftp://user@Host.Example.com:21/path?q')).toBe('Host.Example.com');
    expect(uriHost('urn:isbn:0451450523')).toBeNull();
    expect(uriHost('http://[2001:db8::1]/')).toBeNull();
    expect(within(uri('http://testcertificates.gov/index.html'), uri('testcertificates.gov'))).toBe(true);
    expect(within(uri('http://www.testcertificates.gov/'), uri('testcertificates.gov'))).toBe(false);
    expect(within(uri('http://www.testcertificates.gov/'), uri('.testcertificates.gov'))).toBe(true);
    expect(within(uri('http://testcertificates.gov/'), uri('.testcertificates.gov'))).toBe(false);
    expect(within(uri('urn:example:testcertificates.gov'), uri('testcertificates.gov'))).toBe(false);
  });
});

describe('iPAddress and the forms this code cannot judge', () => {
  it('an address against address and mask; otherName and the like are named as not checkable', () => {
    expect(within(ip(192, 0, 2, 17), ip(192, 0, 2, 0, 255, 255, 255, 0))).toBe(true);
    expect(within(ip(192, 0, 3, 17), ip(192, 0, 2, 0, 255, 255, 255, 0))).toBe(false);
    expect(within(ip(192, 0, 2, 17), ip(...new Array<number>(32).fill(0)))).toBe(false); // an IPv6 range holds no IPv4 address
    const other = readDerExact(tlv(GENERAL_NAME.otherName, oid('1.2.3.4'), tlv(0xa0, tlv(0x0c, Uint8Array.of(0x61)))));
    const otherBase = readDerExact(tlv(GENERAL_NAME.otherName, oid('1.2.3.4'), tlv(0xa0, tlv(0x0c, Uint8Array.of(0x62)))));
    expect(within(other, otherBase)).toBeNull();
  });
});

describe('the names of a certificate (§4.2.1.10)', () => {
  const onPkits = it.skipIf(!PKITS);
  const needs = PKITS ? '' : ` (${NO_OUTSIDE_VECTORS})`;
  const constraint = (tag: number, ...bases: string[]) => readNameConstraints(seq(tlv(0xa0, ...bases.map((b) => seq(tlv(tag, new TextEncoder().encode(b)))))));

  onPkits(`the subject emailAddress is checked as an rfc822Name when there is no subjectAltName${needs}`, () => {
    const ee = pkits('InvalidDNandRFC822nameConstraintsTest29EE');
    expect(ee.altNames).toBeNull();
    expect(namesOf(ee).map((n) => n.shown)).toEqual(['subject', 'subject emailAddress Test29EE@invalidcertificates.gov']);
    expect(checkNameConstraints(ee, constraint(GENERAL_NAME.rfc822Name, 'testcertificates.gov'), 'CN=CA')).toEqual([
      `certificate ${ee.name}: subject emailAddress Test29EE@invalidcertificates.gov is not within the permitted rfc822Name subtrees of CN=CA`,
    ]);
    expect(checkNameConstraints(ee, constraint(GENERAL_NAME.rfc822Name, 'invalidcertificates.gov'), 'CN=CA')).toEqual([]);
    // With a subjectAltName, §4.2.1.10 applies rfc822Name constraints to it alone.
    const withSan = { ...ee, altNames: [mail('Test29EE@testcertificates.gov')] };
    expect(checkNameConstraints(withSan, constraint(GENERAL_NAME.rfc822Name, 'testcertificates.gov'), 'CN=CA')).toEqual([]);
  });

  onPkits(`a name of a form the constraints do not mention is not constrained; one of a form they mention is${needs}`, () => {
    const ee = pkits('ValidDNSnameConstraintsTest30EE');
    expect(namesOf(ee).map((n) => n.shown)).toEqual(['subject', 'subjectAltName dNSName testserver.testcertificates.gov']);
    expect(checkNameConstraints(ee, constraint(GENERAL_NAME.rfc822Name, 'elsewhere.example'), 'CN=CA')).toEqual([]);
    expect(checkNameConstraints(ee, constraint(GENERAL_NAME.dNSName, 'elsewhere.example'), 'CN=CA')).toEqual([
      `certificate ${ee.name}: subjectAltName dNSName testserver.testcertificates.gov is not within the permitted dNSName subtrees of CN=CA`,
    ]);
    const excluded = readNameConstraints(seq(tlv(0xa1, seq(tlv(GENERAL_NAME.dNSName, new TextEncoder().encode('testcertificates.gov'))))));
    expect(checkNameConstraints(ee, excluded, 'CN=CA')).toEqual([
      `certificate ${ee.name}: subjectAltName dNSName testserver.testcertificates.gov is within an excluded dNSName subtree of CN=CA`,
    ]);
  });

  onPkits(`directoryName constraints bind the subject and directoryName entries of the subjectAltName${needs}`, () => {
    const ee = pkits('InvalidDNnameConstraintsTest3EE');
    const base = seq(setOf(seq(oid('2.5.4.6'), tlv(0x13, new TextEncoder().encode('US')))), setOf(seq(oid('2.5.4.10'), tlv(0x13, new TextEncoder().encode('Test Certificates 2011')))));
    const permitted = readNameConstraints(seq(tlv(0xa0, seq(tlv(GENERAL_NAME.directoryName, base)))));
    expect(namesOf(ee).map((n) => n.shown)).toEqual(['subject', 'subjectAltName directoryName CN=Invalid DN nameConstraints EE Certificate Test3,OU=excludedSubtree1,O=Test Certificates 2011,C=US']);
    expect(checkNameConstraints(ee, permitted, 'CN=CA')).toEqual([]);
  });

  it('refuses GeneralSubtrees with a minimum or maximum (§4.2.1.10)', () => {
    const withMax = seq(tlv(0xa0, seq(tlv(GENERAL_NAME.dNSName, new TextEncoder().encode('a.example')), tlv(0x81, Uint8Array.of(1)))));
    expect(() => readNameConstraints(withMax)).toThrow(/minimum or maximum/);
    const zeroMin = seq(tlv(0xa0, seq(tlv(GENERAL_NAME.dNSName, new TextEncoder().encode('a.example')), tlv(0x80, Uint8Array.of(0)))));
    expect(readNameConstraints(zeroMin).permitted).toHaveLength(1);
  });
});
