/**
 * CMS SignedData for PAdES (SubFilter ETSI.CAdES.detached, ETSI EN 319 142-1 §5.1 / §6.3 baseline B-B,
 * CAdES per ETSI EN 319 122-1). Built by hand on DER: node-forge's PKCS#7 signer is RSA-only and cannot
 * carry ESS signing-certificate-v2. Pure: hashing and signature checks only, no I/O. Checked, ours
 * as any other, by cms-check.ts (verifyCmsSignature).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { SigningError } from '../../domain/errors';
import {
  bytesEqual, children, concat, ctx, DerError, derNull, expectTag, oid, octets, readDerExact,
  seq, setOf, TAG, tlv, uint, unsignedIntegerContent,
} from '../../der/der';
import { readCertificate, readSpkiAlgorithm } from '../../der/certificate-fields';
import { KEY_TYPE_NAMES, OID } from '../../der/oids';
import { memoByDer } from '../../der/memo-by-der';
import type { SignatureAlgorithm } from '../../domain/pades';

export function sha256Chunks(chunks: Iterable<Uint8Array>): Uint8Array {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return new Uint8Array(h.digest());
}

function certFields(der: Uint8Array, what: string) {
  try {
    return readCertificate(der);
  } catch (e) {
    throw new SigningError(`${what} is not a DER X.509 certificate: ${(e as Error).message}`, { cause: e });
  }
}

export function algorithmOfCertificate(der: Uint8Array): SignatureAlgorithm {
  const { algorithm, parameter } = readSpkiAlgorithm(certFields(der, 'signer certificate').spki);
  if (algorithm === OID.rsaEncryption) return 'rsa';
  if (algorithm === OID.ecPublicKey && parameter === OID.prime256v1) return 'p256';
  const name =
    algorithm === OID.ecPublicKey
      ? (KEY_TYPE_NAMES[parameter ?? ''] ?? `EC curve ${parameter ?? '(explicit parameters)'}`)
      : (KEY_TYPE_NAMES[algorithm] ?? `key algorithm ${algorithm}`);
  throw new SigningError(`unsupported signer key type ${name}: only RSA and EC P-256 certificates can sign`);
}

/** RFC 5035 §5.4: ESSCertIDv2 { certHash, issuerSerial }; hashAlgorithm omitted as SHA-256 is DEFAULT. */
function signingCertificateV2(cert: Uint8Array): Uint8Array {
  const f = certFields(cert, 'signer certificate');
  // IssuerSerial.issuer is GeneralNames; directoryName is [4], EXPLICIT because Name is a CHOICE.
  const issuerSerial = seq(seq(ctx(4, f.issuer.raw)), f.serial.raw);
  return seq(seq(seq(octets(sha256Chunks([cert])), issuerSerial)));
}

const attribute = (type: string, value: Uint8Array): Uint8Array => seq(oid(type), setOf(value));

export function buildSignedAttributes(o: { documentDigest: Uint8Array; signerCertificate: Uint8Array }): Uint8Array {
  if (o.documentDigest.length !== 32) {
    throw new SigningError(`documentDigest must be 32 bytes (SHA-256), got ${o.documentDigest.length}`);
  }
  // No signing-time: PAdES B-B puts the claimed time in /M (ETSI EN 319 142-1 §6.3, item j).
  return setOf(
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octets(o.documentDigest)),
    attribute(OID.signingCertificateV2, signingCertificateV2(o.signerCertificate)),
  );
}

/** ECDSA raw r‖s (P1363, as PKCS#11 CKM_ECDSA returns it) to Ecdsa-Sig-Value (RFC 5480 §2.2 / X9.62). */
export function ecdsaRawToDer(rs: Uint8Array): Uint8Array {
  if (rs.length !== 64) throw new SigningError(`ECDSA P-256 raw signature must be 64 bytes (r‖s), got ${rs.length}`);
  return seq(uint(rs.subarray(0, 32)), uint(rs.subarray(32)));
}

export function ecdsaDerToRaw(der: Uint8Array): Uint8Array {
  try {
    const parts = children(expectTag(readDerExact(der), TAG.SEQUENCE, 'Ecdsa-Sig-Value'));
    if (parts.length !== 2) throw new DerError('Ecdsa-Sig-Value must hold exactly r and s');
    return concat(
      parts.map((p, k) => {
        const c = expectTag(p, TAG.INTEGER, k ? 's' : 'r').content;
        const m = c.subarray(c.findIndex((b) => b !== 0) < 0 ? c.length : c.findIndex((b) => b !== 0));
        if (m.length > 32 || (c[0]! & 0x80) !== 0) throw new DerError(`${k ? 's' : 'r'} is not a P-256 scalar`);
        const out = new Uint8Array(32);
        out.set(m, 32 - m.length);
        return out;
      }),
    );
  } catch (e) {
    throw new SigningError(`ECDSA signature is not valid DER: ${(e as Error).message}`, { cause: e });
  }
}

/** ECDSA values are accepted DER-encoded or raw r‖s (64 bytes); the CMS always carries DER (RFC 5753 §7.2). */
function ecdsaValueDer(value: Uint8Array): Uint8Array {
  if (value[0] === TAG.SEQUENCE) {
    try {
      ecdsaDerToRaw(value);
      return value;
    } catch {
      // fall through: a raw value that happens to start with 0x30
    }
  }
  return ecdsaRawToDer(value);
}

/**
 * The certificates SignedData carries: the signer and its intermediates, never a self-signed root
 * other than the signer itself. The root is the verifier's trust anchor and comes from its own
 * store (ETSI EN 319 122-1 B-B; EU DSS does the same); NSS-based verifiers (poppler's pdfsig)
 * distrust a later signature by the same signer when an earlier CMS in the file carried the root.
 */
export function certificatesToEmbed(chain: Uint8Array[]): Uint8Array[] {
  return chain.filter((der, i) => i === 0 || !isSelfSigned(der));
}

/** Self-issued (subject = issuer, byte for byte, RFC 5280 §6.1) and signed by its own key. */
const isSelfSigned = memoByDer((der: Uint8Array): boolean => {
  const f = certFields(der, 'chain certificate');
  if (!bytesEqual(f.issuer.raw, f.subject.raw)) return false;
  try {
    const x = new X509Certificate(der);
    return x.verify(x.publicKey);
  } catch {
    return false;
  }
});

/** The certificate's public key, for verifying what it signed. */
export const publicKeyOfCertificate = memoByDer((der: Uint8Array) => new X509Certificate(der).publicKey);

/** Bytes of an RSA signature by this certificate's key (its modulus length). */
const rsaSignatureLength = memoByDer((der: Uint8Array): number => Math.ceil((publicKeyOfCertificate(der).asymmetricKeyDetails?.modulusLength ?? 8192) / 8));

export function assembleCms(o: {
  signedAttributes: Uint8Array;
  signatureValue: Uint8Array;
  certificateChain: Uint8Array[];
  algorithm: SignatureAlgorithm;
  timestampToken?: Uint8Array | null;
}): Uint8Array {
  const signer = o.certificateChain[0];
  if (!signer) throw new SigningError('certificateChain is empty: the signer certificate must come first');
  const actual = algorithmOfCertificate(signer);
  if (actual !== o.algorithm) throw new SigningError(`algorithm ${o.algorithm} does not match the signer certificate key (${actual})`);
  if (o.signedAttributes[0] !== TAG.SET) throw new SigningError('signedAttributes must be the DER SET OF (tag 0x31)');
  const f = certFields(signer, 'signer certificate');
  const sha256 = seq(oid(OID.sha256)); // RFC 5754 §2: parameters absent
  const signatureAlgorithm = o.algorithm === 'rsa' ? seq(oid(OID.rsaEncryption), derNull()) : seq(oid(OID.ecdsaWithSha256));
  const signature = o.algorithm === 'rsa' ? o.signatureValue : ecdsaValueDer(o.signatureValue);
  // RFC 5652 §5.3: signedAttrs is [0] IMPLICIT: the signed SET bytes with only the tag changed.
  const signedAttrs = concat([Uint8Array.of(0xa0), o.signedAttributes.subarray(1)]);
  const unsigned = o.timestampToken
    ? [tlv(0xa1, attribute(OID.signatureTimeStampToken, o.timestampToken))]
    : [];
  const signerInfo = seq(
    uint(1),
    seq(f.issuer.raw, f.serial.raw),
    sha256,
    signedAttrs,
    signatureAlgorithm,
    octets(signature),
    ...unsigned,
  );
  const signedData = seq(
    uint(1),
    setOf(sha256),
    seq(oid(OID.data)), // detached: no eContent (ETSI EN 319 142-1 §6.2.1)
    ctx(0, ...certificatesToEmbed(o.certificateChain)),
    tlv(TAG.SET, signerInfo),
  );
  return seq(oid(OID.signedData), ctx(0, signedData));
}

/** Bytes a TimeStampToken may take, TSA certificate chain included. */
const TIMESTAMP_TOKEN_BOUND = 8192;

export function estimateCmsSize(chain: Uint8Array[], algorithm: SignatureAlgorithm, withTimestamp: boolean): number {
  // The same for every signature of a credential at a level: built once (a sample CMS per prepare
  // was 0.4 ms of a PDF worker's time per small PDF, measured on a 2-core machine).
  const key = `${algorithm}|${withTimestamp}|${chain.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('base64')).join('|')}`;
  let size = estimatedSizes.get(key);
  if (size === undefined) {
    size = sampleCmsSize(chain, algorithm, withTimestamp);
    if (estimatedSizes.size >= 32) estimatedSizes.delete(estimatedSizes.keys().next().value!);
    estimatedSizes.set(key, size);
  }
  return size;
}

const estimatedSizes = new Map<string, number>();

function sampleCmsSize(chain: Uint8Array[], algorithm: SignatureAlgorithm, withTimestamp: boolean): number {
  const signer = chain[0];
  if (!signer) throw new SigningError('certificateChain is empty: the signer certificate must come first');
  const attrs = buildSignedAttributes({ documentDigest: new Uint8Array(32), signerCertificate: signer });
  // Largest signature value: the RSA modulus length, or DER r,s both 33 bytes for P-256.
  const sigLength = algorithm === 'rsa' ? rsaSignatureLength(signer) : 72;
  const sample = assembleCms({
    signedAttributes: attrs,
    signatureValue: algorithm === 'rsa' ? new Uint8Array(sigLength).fill(0xff) : maxEcdsaDer(),
    certificateChain: chain,
    algorithm,
    timestampToken: withTimestamp ? tlv(TAG.SEQUENCE, new Uint8Array(TIMESTAMP_TOKEN_BOUND)) : null,
  });
  return sample.length + 64;
}

function maxEcdsaDer(): Uint8Array {
  const big = new Uint8Array(32).fill(0xff);
  return seq(tlv(TAG.INTEGER, unsignedIntegerContent(big)), tlv(TAG.INTEGER, unsignedIntegerContent(big)));
}
