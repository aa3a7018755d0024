/**
 * The PAdES engine's contract with the rest of the service (signing/kinds/pades.ts calls it).
 * Two steps with state between them (the digest may go to a platform that answers minutes later):
 *   preparePades(input) -> PreparedPades (persisted per request) -> signature value -> finishPades().
 * Everything here is pure byte work: no fs, no clock (signingTime is passed in), no network.
 */
import type { SignatureAlgorithm, StampSpec } from '../../domain/pades';
import type { StampDecision } from '../stamp';


export interface PadesPrepareInput {
  pdf: Uint8Array;
  /** DER certificates, signer first, root last. The signer's key type decides the algorithm. */
  certificateChain: Uint8Array[];
  /** Written to /M (no signing-time attribute, per PAdES baseline). */
  signingTime: Date;
  reason?: string | null;
  location?: string | null;
  signerName?: string | null;
  /** Visible stamp with its text already filled; null or absent: invisible signature. */
  stamp?: StampSpec | null;
  /** Reserve room in /Contents for an RFC 3161 timestamp token (B-T). */
  reserveTimestamp?: boolean;
  /** Make it the certification signature with this DocMDP permission (ISO 32000-1 §12.8.2.2). */
  certify?: 1 | 2 | 3 | null;
  /**
   * The stamp's position the check before the 202 found for this document (placement.ts): the
   * page's content is not walked again. Absent (a request resumed after a restart): decided here.
   */
  placement?: StampDecision | null;
}

export interface PreparedPades {
  /** The output PDF with /ByteRange patched and /Contents all zeros: input bytes are its exact prefix. */
  pdf: Uint8Array;
  /** Byte offset of the first hex digit inside /Contents < … > and the number of hex digits. */
  contentsOffset: number;
  contentsHexLength: number;
  byteRange: [number, number, number, number];
  /** DER of the CMS signed attributes (SET OF, tag 0x31) — what the chip/platform signs. */
  signedAttributes: Uint8Array;
  /** SHA-256 of signedAttributes: the digest handed to Chip.signDigest / the platform. */
  digest: Uint8Array;
  algorithm: SignatureAlgorithm;
  certificateChain: Uint8Array[];
  /** What the caller should know about how the document was signed (a stamp moved to free space, …). */
  warnings: string[];
  /** Where the stamp was drawn; null for an invisible signature. */
  stampAt: StampLocation | null;
}

/**
 * Where a signature's stamp is in the signed document, so a person knows where to look (a stamp
 * on the last page of 40 is easy to miss): its page, counted from 1 (null in the rare form whose
 * field's page is not in the page tree), the document's page count, and its box in the page's
 * default user space, in points from the lower-left corner (ISO 32000-1 §8.3.2.3), as /Rect.
 */
export interface StampLocation {
  page: number | null;
  pageCount: number;
  rect: [number, number, number, number];
}

export interface PadesFinishOptions {
  /** DER TimeStampToken (ContentInfo) over the signature value, for B-T. */
  timestampToken?: Uint8Array | null;
  /**
   * Write the signature into `prepared.pdf` itself and return it, instead of a copy: for a caller
   * with no further use for the prepared bytes (a job: 100 MB less to copy and to hold).
   */
  inPlace?: boolean;
}
