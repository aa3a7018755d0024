/**
 * checkCms (validation's reading of any CMS a PDF carries) on CMSes built here byte by byte:
 * DER and BER outer structures, with and without signed attributes, signed attributes that are
 * not DER, encapsulated content, and hostile nesting; and its `ownOutput` profile (our own CMS
 * before DONE), which keeps every one of those checks and adds its own. The same variants made by openssl are in
 * test/integration/pades/cms-variants.test.ts.
 */
import { createHash, sign as cryptoSign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCertificate } from '../../../../src/der/certificate-fields';
import { children, concat, ctx, derNull, octets, oid, readDerExact, seq, setOf, tlv, uint, type Der } from '../../../../src/der/der';
import { OID } from '../../../../src/der/oids';
import { buildSignedAttributes } from '../../../../src/pades/cms/cms';
import { checkCms, type DetachedContent } from '../../../../src/pades/cms/cms-check';
import { createTestPki, type TestPki } from '../../../helpers/test-pki';

const DOCUMENT = [new TextEncoder().encode('%PDF-1.7 the first signed range '), new TextEncoder().encode('and the second, after /Contents\n')];
const whole = concat(DOCUMENT);
const sha256 = (b: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(b).digest());

let rsa: TestPki;
let p256: TestPki;
beforeAll(async () => {
  [rsa, p256] = await Promise.all([createTestPki({ algorithm: 'rsa' }), createTestPki({ algorithm: 'p256' })]);
});

type Attrs = 'der' | 'none' | { stored: Uint8Array; signed: Uint8Array };

/** RFC 5652 §5: ContentInfo { SignedData } with one SignerInfo, built on der.ts. */
function signedData(pki: TestPki, o: { attrs: Attrs; attached?: Uint8Array }): Uint8Array {
  const signer = pki.chain[0]!;
  const cert = readCertificate(signer);
  const ec = pki === p256;
  let stored: Uint8Array | null = null;
  let toSign: Uint8Array = whole;
  if (o.attrs === 'der') {
    stored = toSign = buildSignedAttributes({ documentDigest: sha256(whole), signerCertificate: signer });
  } else if (o.attrs !== 'none') {
    stored = o.attrs.stored;
    toSign = o.attrs.signed;
  }
  const signature = new Uint8Array(cryptoSign('sha256', toSign, pki.signerKeyPem));
  const signerInfo = seq(
    uint(1),
    seq(cert.issuer.raw, cert.serial.raw),
    seq(oid(OID.sha256)),
    ...(stored ? [tlv(0xa0, readDerExact(stored).content)] : []), // [0] IMPLICIT SET OF Attribute
    ec ? seq(oid(OID.ecdsaWithSha256)) : seq(oid(OID.sha256WithRSA), derNull()),
    octets(signature),
  );
  const encap = seq(oid(OID.data), ...(o.attached ? [ctx(0, octets(o.attached))] : []));
  const sd = seq(uint(1), setOf(seq(oid(OID.sha256))), encap, ctx(0, ...pki.chain), setOf(signerInfo));
  return seq(oid(OID.signedData), ctx(0, sd));
}

const indef = (tag: number, parts: Uint8Array[]): Uint8Array => concat([Uint8Array.of(tag, 0x80), ...parts, Uint8Array.of(0, 0)]);

/**
 * The CMS with its outer structure in BER, as Acrobat and `openssl -stream` write it: ContentInfo,
 * SignedData and its SETs, encapContentInfo of indefinite length (X.690 §8.1.3.6), an eContent in
 * 7-octet segments of a constructed OCTET STRING (§8.7.3). Certificates and SignerInfos stay DER.
 */
function berOuter(cms: Uint8Array): Uint8Array {
  const [type, wrapper] = children(readDerExact(cms));
  const fields = children(children(wrapper!)[0]!).map((f: Der) => {
    if (f.tag === 0x30) {
      const [t, e] = children(f);
      if (!e) return indef(0x30, [t!.raw]);
      const data = children(e)[0]!.content;
      const segments: Uint8Array[] = [];
      for (let i = 0; i < data.length; i += 7) segments.push(octets(data.subarray(i, i + 7)));
      return indef(0x30, [t!.raw, indef(0xa0, [indef(0x24, segments)])]);
    }
    if (f.tag === 0x31 || f.tag === 0xa0) return indef(f.tag, children(f).map((c) => c.raw));
    return f.raw;
  });
  return indef(0x30, [type!.raw, indef(0xa0, [indef(0x30, fields)])]);
}

/** The DER signed attributes (SET OF) with their order reversed: same bytes, not DER (X.690 §11.6). */
function reversed(attrs: Uint8Array): Uint8Array {
  return tlv(0x31, ...children(readDerExact(attrs)).map((a) => a.raw).reverse());
}

const tampered = (): Uint8Array[] => [DOCUMENT[0]!, Uint8Array.from(DOCUMENT[1]!, (b, i) => (i === 0 ? b ^ 1 : b))];

describe('checkCms', () => {
  it('DER, detached, signed attributes with ESS: ok, and every fact the level needs', () => {
    const c = checkCms(signedData(rsa, { attrs: 'der' }), DOCUMENT);
    expect(c).toMatchObject({ ok: true, problems: [], detached: true, signedAttributes: true, hasSigningCertificateV2: true, content: null });
    expect(c.signerCertificate).toEqual(rsa.chain[0]);
    expect(checkCms(signedData(rsa, { attrs: 'der' }), tampered()).problems).toEqual(['the document digest does not match: the signed bytes were changed']);
  });

  it('BER outer structure: the same verdicts as its DER twin, the eContent joined from its segments', () => {
    const ber = berOuter(signedData(rsa, { attrs: 'der' }));
    expect(ber.subarray(0, 2)).toEqual(Uint8Array.of(0x30, 0x80));
    expect(checkCms(ber, DOCUMENT)).toMatchObject({ ok: true, problems: [], detached: true, hasSigningCertificateV2: true });
    expect(checkCms(ber, tampered()).problems).toEqual(['the document digest does not match: the signed bytes were changed']);

    const attached = berOuter(signedData(rsa, { attrs: 'der', attached: whole }));
    const c = checkCms(attached, DOCUMENT);
    expect(c).toMatchObject({ ok: true, problems: [], detached: false });
    expect(Buffer.from(c.content!).equals(Buffer.from(whole))).toBe(true);
    // An attached signature alone (a timestamp token is one) is checked over its eContent.
    expect(checkCms(attached, null)).toMatchObject({ ok: true, problems: [] });
    // The encapsulated content must be the /ByteRange's bytes.
    expect(checkCms(attached, tampered()).problems).toEqual(['the encapsulated content is not the signed byte range']);
  });

  it.each(['rsa', 'p256'] as const)('no signed attributes (%s): the signature over the content itself (RFC 5652 §5.4), fed in its pieces', (alg) => {
    const pki = alg === 'rsa' ? rsa : p256;
    const cms = signedData(pki, { attrs: 'none' });
    expect(checkCms(cms, DOCUMENT)).toMatchObject({ ok: true, problems: [], signedAttributes: false, hasSigningCertificateV2: false, detached: true });
    expect(checkCms(cms, tampered())).toMatchObject({ ok: false, problems: ["the signature value does not verify with the signer certificate's key"] });
    expect(checkCms(cms, null).problems).toEqual(['there is no content to check the signature against']);
    expect(checkCms(berOuter(cms), DOCUMENT)).toMatchObject({ ok: true, problems: [] });
    // Encapsulated and without signed attributes: the eContent is what was signed.
    expect(checkCms(signedData(pki, { attrs: 'none', attached: whole }), DOCUMENT)).toMatchObject({ ok: true, detached: false });
  });

  it('signed attributes not stored in DER: the digest is invalid, whatever the signature covers', () => {
    const der = buildSignedAttributes({ documentDigest: sha256(whole), signerCertificate: rsa.chain[0]! });
    const unsorted = reversed(der);
    // Signed as stored (what OpenSSL and NSS verify): the signature holds, the encoding does not.
    const asStored = checkCms(signedData(rsa, { attrs: { stored: unsorted, signed: unsorted } }), DOCUMENT);
    expect(asStored.ok).toBe(false);
    expect(asStored.problems).toEqual([expect.stringMatching(/^signed attributes not DER-encoded: SET elements not in ascending order at offset \d+ \(X\.690 §11\.6\)$/)]);
    expect(asStored.hasSigningCertificateV2).toBe(true);
    // Signed over the DER order, stored otherwise: the signature fails over the stored bytes too.
    expect(checkCms(signedData(rsa, { attrs: { stored: unsorted, signed: der } }), DOCUMENT).problems).toEqual([
      expect.stringMatching(/^signed attributes not DER-encoded: /),
      "the signature value does not verify with the signer certificate's key",
    ]);
    // BER lengths inside: the message digest's OCTET STRING with a long-form length of 32.
    const attrs = children(readDerExact(der)).map((a) => a.raw);
    const md = attrs.findIndex((a) => Buffer.from(a).includes(Buffer.from(oid(OID.messageDigest))));
    attrs[md] = seq(oid(OID.messageDigest), tlv(0x31, concat([Uint8Array.of(0x04, 0x81, 0x20), sha256(whole)])));
    const longForm = tlv(0x31, ...attrs);
    expect(checkCms(signedData(rsa, { attrs: { stored: longForm, signed: longForm } }), DOCUMENT).problems).toEqual([
      expect.stringMatching(/^signed attributes not DER-encoded: a long-form length under 128 at offset \d+ \(X\.690 §10\.1\)$/),
    ]);
  });

  it('a hostile CMS: nesting refused at the cap, at once', () => {
    const deep = new Uint8Array(400_000);
    for (let i = 0; i < 100_000; i++) deep.set([0x30, 0x80], 2 * i);
    const started = performance.now();
    expect(checkCms(deep, DOCUMENT).problems).toEqual(['the signature is not a readable CMS SignedData: BER nested deeper than 64 levels (offset 130)']);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('checkCms with ownOutput (verify.ts: our own CMS before DONE)', () => {
  const own = (cms: Uint8Array, content: DetachedContent = { digestAlgorithm: OID.sha256, digest: sha256(whole) }) => checkCms(cms, content, { ownOutput: true });

  it('holds for the profile cms.ts builds, against the digest or the content itself', () => {
    for (const pki of [rsa, p256]) {
      const cms = signedData(pki, { attrs: 'der' });
      expect(own(cms)).toMatchObject({ ok: true, problems: [], detached: true, hasSigningCertificateV2: true });
      expect(own(cms, DOCUMENT)).toMatchObject({ ok: true, problems: [] });
      expect(own(cms).signedAttributesSet).toEqual(buildSignedAttributes({ documentDigest: sha256(whole), signerCertificate: pki.chain[0]! }));
      expect(own(cms, { digestAlgorithm: OID.sha256, digest: sha256(concat(tampered())) }).problems).toEqual(['the document digest does not match: the signed bytes were changed']);
    }
  });

  it('refuses what any CMS may be but ours is not: BER, encapsulated content, no signed attributes, no ESS, another content type', () => {
    const ber = berOuter(signedData(rsa, { attrs: 'der' }));
    expect(checkCms(ber, DOCUMENT).ok).toBe(true);
    expect(own(ber).problems).toEqual(['the signature is not a readable CMS SignedData: indefinite length is not DER (offset 0)']);
    const attached = signedData(rsa, { attrs: 'der', attached: whole });
    expect(checkCms(attached, DOCUMENT).ok).toBe(true);
    expect(own(attached).problems).toEqual(['the signature is not detached (eContent present)']);
    const bare = signedData(rsa, { attrs: 'none' });
    expect(checkCms(bare, DOCUMENT).ok).toBe(true);
    expect(own(bare, DOCUMENT).problems).toEqual(['SignerInfo has no signed attributes']);
    // The same signed attributes without ESS signing-certificate-v2, and with content-type id-signedData.
    const attrs = children(readDerExact(buildSignedAttributes({ documentDigest: sha256(whole), signerCertificate: rsa.chain[0]! }))).map((a) => a.raw);
    const has = (a: Uint8Array, type: string): boolean => Buffer.from(a).includes(Buffer.from(oid(type)));
    const noEss = setOf(...attrs.filter((a) => !has(a, OID.signingCertificateV2)));
    expect(checkCms(signedData(rsa, { attrs: { stored: noEss, signed: noEss } }), DOCUMENT).ok).toBe(true);
    expect(own(signedData(rsa, { attrs: { stored: noEss, signed: noEss } })).problems).toEqual(['ESS signing-certificate-v2 attribute is missing']);
    const otherType = setOf(...attrs.map((a) => (has(a, OID.contentType) ? seq(oid(OID.contentType), setOf(oid(OID.signedData))) : a)));
    expect(own(signedData(rsa, { attrs: { stored: otherType, signed: otherType } })).problems).toEqual(['content-type attribute is missing or not id-data']);
  });

  it('refuses an ESS signing-certificate-v2 naming another certificate', () => {
    const foreign = buildSignedAttributes({ documentDigest: sha256(whole), signerCertificate: p256.chain[0]! });
    const cms = signedData(rsa, { attrs: { stored: foreign, signed: foreign } });
    expect(checkCms(cms, DOCUMENT).ok).toBe(true);
    expect(own(cms).problems).toEqual(['ESS signing-certificate-v2 certHash does not match the signer certificate']);
  });
});
