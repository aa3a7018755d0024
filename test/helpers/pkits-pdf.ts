/**
 * A PKITS case as a signed PDF, its certificates and CRLs in one of the carriers a PAdES validator
 * reads them from (issue 28):
 * - `cms`: the intermediates in SignedData.certificates and the CRLs in its `crls` field (RFC 5652
 *   §10.2.1 RevocationInfoChoices);
 * - `dss`: the end entity alone in the CMS, the intermediates and CRLs in the document's /DSS with a
 *   /VRI entry for the signature, added by an incremental update after signing, as B-LT does
 *   (pades/sign/dss.ts);
 * - `archival`: the intermediates in the CMS and the CRLs in Adobe's adbe-revocationInfoArchival
 *   signed attribute (ISO 32000-1 §12.8.3.3.2).
 * PKITS ships no end-entity keys in the copies ../shared/vectors holds, and path validation needs
 * none: the signature value is 256 bytes no key made, so each signature is invalid and what a test
 * reads is its `chain` and `revocation`, judged from the certificates and CRLs alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { children, ctx, oid, readDerExact, seq, setOf, tlv, type Der } from '../../src/der/der';
import { OID } from '../../src/der/oids';
import { assembleCms } from '../../src/pades/cms/cms';
import { embedContents } from '../../src/pades/pdf';
import { addDss } from '../../src/pades/sign/dss';
import { preparePades } from '../../src/pades/sign/prepare';
import type { PkitsCase } from './pkits-cases';

export type Carrier = 'cms' | 'dss' | 'archival';

const FAKE_SIGNATURE = new Uint8Array(256).fill(0x5a);

let blank: Promise<Uint8Array> | null = null;
function blankPdf(): Promise<Uint8Array> {
  blank ??= (async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([595, 842]);
    return doc.save({ useObjectStreams: false });
  })();
  return blank;
}

/**
 * The DER CMS `cms` with its SignedData's `crls` [1] field (RFC 5652 §10.2.1 RevocationInfoChoices)
 * set before signerInfos: each CRL as a CertificateList, each OCSP response as [1]
 * OtherRevocationInfoFormat { id-ri-ocsp-response, OCSPResponse } (RFC 5940 §4.1).
 */
export function withRevocationInfo(cms: Uint8Array, info: { crls: Uint8Array[]; ocsps?: Uint8Array[] }): Uint8Array {
  const [type, content] = children(readDerExact(cms)) as [Der, Der];
  const parts = children(children(content)[0]!);
  const signerInfos = parts.pop()!;
  const choices = [...info.crls, ...(info.ocsps ?? []).map((o) => tlv(0xa1, oid(OID.riOcspResponse), o))];
  return seq(type.raw, ctx(0, seq(...parts.map((p) => p.raw), tlv(0xa1, ...choices), signerInfos.raw)));
}

/** The SET OF signed attributes with adbe-revocationInfoArchival { crl [0] SEQUENCE OF CRLs } added. */
function withArchival(signedAttributes: Uint8Array, crls: Uint8Array[]): Uint8Array {
  const attrs = children(readDerExact(signedAttributes)).map((a) => a.raw);
  const archival = seq(oid(OID.adbeRevocationInfoArchival), setOf(seq(ctx(0, seq(...crls)))));
  return setOf(...attrs, archival);
}

export interface PkitsFiles {
  cert(name: string): Uint8Array;
  /** null when ../shared/vectors/pkits-all lacks it. */
  crl(name: string): Uint8Array | null;
}

export function pkitsFiles(dir: string): PkitsFiles {
  return {
    cert: (name) => new Uint8Array(readFileSync(join(dir, 'certs', `${name}.crt`))),
    crl: (name) => {
      try {
        return new Uint8Array(readFileSync(join(dir, 'crls', `${name}.crl`)));
      } catch {
        return null;
      }
    },
  };
}

/** The PDF of case `c` with its data in `carrier`. */
export async function pkitsPdf(files: PkitsFiles, c: PkitsCase, carrier: Carrier): Promise<Uint8Array> {
  const leaf = files.cert(c.certificates.at(-1)!);
  const intermediates = c.certificates.slice(0, -1).map(files.cert);
  const crls = ['TrustAnchorRootCRL', ...c.crls].map(files.crl).filter((x): x is Uint8Array => x !== null);
  const chain = carrier === 'dss' ? [leaf] : [leaf, ...intermediates];
  // reserveTimestamp: the 8 KB a timestamp token would take hold the CRLs (PKITS's are under 1 KB each).
  const prepared = await preparePades({ pdf: await blankPdf(), certificateChain: chain, signingTime: new Date('2026-11-22T10:00:00Z'), reserveTimestamp: true });
  const signedAttributes = carrier === 'archival' ? withArchival(prepared.signedAttributes, crls) : prepared.signedAttributes;
  let cms = assembleCms({ signedAttributes, signatureValue: FAKE_SIGNATURE, certificateChain: chain, algorithm: prepared.algorithm });
  if (carrier === 'cms') cms = withRevocationInfo(cms, { crls });
  const pdf = prepared.pdf.slice();
  embedContents(pdf, prepared.contentsOffset, prepared.contentsHexLength, cms);
  if (carrier !== 'dss') return pdf;
  const contents = Buffer.from(Buffer.from(pdf.subarray(prepared.contentsOffset, prepared.contentsOffset + prepared.contentsHexLength)).toString('latin1'), 'hex');
  const data = { certs: intermediates, ocsps: [], crls };
  return addDss(pdf, data, [{ signatureContents: new Uint8Array(contents), ...data }]);
}
