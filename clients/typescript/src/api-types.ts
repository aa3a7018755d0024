// Generated from the OpenAPI document by build/openapi-to-ts.mjs (npm run client:types).
// Do not edit: change src/api/request-schemas.ts or src/api/response-schemas.ts instead.

export interface ErrorBody {
  /** Short message naming the field and what was expected; never a traceback */
  error: string;
  /** Id of the record in GET /v1/errors and errors.jsonl */
  error_id: string;
}

export interface Accepted {
  /** Read the outcome at GET /v1/results/{request_id} */
  request_id: string;
  status: "PENDING";
}

export interface PendingResult {
  request_id: string;
  status: "PENDING";
}

export interface ErrorResult {
  request_id: string;
  status: "ERROR";
  /** Why the signing failed */
  error: string;
  /** Its record in GET /v1/errors */
  error_id: string;
}

export interface PadesResult {
  request_id: string;
  status: "DONE";
  /** The signed PDF: the input bytes are its exact prefix (incremental update) */
  pdf_base64: string;
  /** Present when something deserves a look, e.g. a stamp moved off the page's content to free space, or a stamp line cut with "…" to fit at 6 pt ("stamp line 1 was shortened …") */
  warnings?: string[];
  /** Where the visible signature is, so a person can be told where to look; absent for an invisible signature */
  stamp?: {
    /** Its page, counted from 1 (null only for a form field whose page is not in the page tree) */
    page: number | null;
    /** Pages in the signed document (one more than the input with `new_page`) */
    page_count: number;
    /** Its box [x1, y1, x2, y2] in points from the page's lower-left corner, as its /Rect */
    rect: number[];
  };
}

export interface EvmResult {
  request_id: string;
  status: "DONE";
  /** 0x + 64 lowercase hex digits */
  r: string;
  /** 0x + 64 lowercase hex digits, low-s (EIP-2) */
  s: string;
  /** 27 + y_parity without chain_id; chain_id * 2 + 35 + y_parity with it (EIP-155) */
  v: number;
  /** The recovery id; typed transactions use it */
  y_parity: 0 | 1;
  /** EIP-55 address of the credential; the service recovered it from the signature */
  address: string;
  chain_id: number | null;
}

/** Per signature in file order; `valid` is the verdict per signature and for the document. A PDF that cannot be fully read is still a report: `valid` false, the reason in `problems` */
export interface VerifyReport {
  /** Every signature valid, at least one, and no document-level problem */
  valid: boolean;
  /** What is wrong with the document as a whole, empty for a sound file: damaged cross-reference data (the objects were found by scanning the file, as qpdf and pdfsig do; each signature that could be read is reported), or why it cannot be read at all (then `signatures` is empty) */
  problems: string[];
  signatures: ({
    valid: boolean;
    field: string;
    /** Every field whose value is this signature dictionary, `field` first */
    fields: string[];
    kind: "signature" | "document_timestamp";
    sub_filter?: string | null;
    signer?: Certificate | null;
    claimed_signing_time?: string | null;
    digest_valid: boolean;
    byte_range: number[] | null;
    covers_whole_document: boolean;
    changes_after: {
      level?: "none" | "dss_and_timestamps" | "signing_and_forms" | "annotations" | "other";
      changes?: string[];
      /** How many changes there are; `changes` lists the first 50 */
      changes_total?: number;
      allowed?: boolean;
      docmdp_permission?: 1 | 2 | 3 | null;
    };
    certifies?: 1 | 2 | 3 | null;
    chain: {
      /** A path to a trust anchor valid by RFC 5280 §6.1, and no certificate of it revoked (or, under revocation "require", of unknown status) */
      trusted?: boolean;
      path?: string[];
      failures?: string[];
      /** The certificate policies (OIDs) the path is valid for, the user-constrained policy set of RFC 5280 §6.1 with its default inputs; 2.5.29.32.0 (anyPolicy) when no certificate restricts them; empty when the chain is not trusted or asserts no policy */
      policies?: string[];
    };
    timestamp?: {
      time?: string | null;
      valid?: boolean;
      authority?: string | null;
      trusted?: boolean;
      chain_failures?: string[];
      problems?: string[];
    } | null;
    /** The revocation status of each certificate of the chain below its trust anchor (RFC 5280 §6.3), at the time the chain is judged */
    revocation: ({
      certificate?: string;
      /** `no_data`: no usable CRL or OCSP response determines it (`problems` says what was found and why it is unusable) */
      status?: "good" | "revoked" | "unknown" | "no_data";
      source?: "ocsp" | "crl" | null;
      /** Where the answer used was found: the document's /DSS or /VRI, the signature's CMS (its crls field or the adbe-revocationInfoArchival attribute), or fetched (verify --online) */
      found_in?: "dss" | "signature" | "online" | null;
      revoked_at?: string | null;
      /** The CRLReason of a revocation (RFC 5280 §5.3.1), when the CRL gives one */
      reason?: string | null;
      checked_at?: string | null;
      problems?: string[];
    })[];
    /** The signer's algorithms and, by ETSI TS 119 312 as EU DSS's default policy encodes it, until when they are acceptable: a lapse by 2022 is a problem (too weak to trust), a later one or an algorithm not in the table a warning */
    algorithms?: {
      /** SHA-256, SHA3-256, SHAKE256, … */
      digest?: string | null;
      /** ECDSA with SHA-256, RSASSA-PSS with SHA-256, Ed25519, Ed448, … */
      signature?: string | null;
      /** RSA 3072, EC P-256, Ed448, … */
      key?: string | null;
      /** The year from which the weakest of them is no longer acceptable */
      acceptable_until?: number | null;
      warnings?: string[];
    };
    level: "B-B" | "B-T" | "B-LT" | "B-LTA" | null;
    problems: string[];
  })[];
}

export type Result = PendingResult | ErrorResult | PadesResult | EvmResult;

export interface ResultEntry {
  request_id: string;
  status: "PENDING" | "DONE" | "ERROR";
  kind: "pades" | "blockchain";
  credential_key: string;
  created_at: string;
  /** null while PENDING */
  completed_at: string | null;
}

export interface ResultList {
  /** Newest first; only this application key’s requests */
  results: ResultEntry[];
}

export interface Certificate {
  /** RFC 4514 */
  subject: string;
  /** RFC 4514 */
  issuer: string;
  /** lowercase hex */
  serial: string;
  not_before: string;
  not_after: string;
}

export interface Credential {
  /** Use it in sign requests */
  credential_key: string;
  type: "pades" | "evm";
  name: string;
  /** chip: this machine's signing chip; platform: the remote platform signs */
  engine: "chip" | "platform";
  /** null for evm credentials */
  default_design_key: string | null;
  /** pades: the signer certificate */
  certificate?: Certificate | null;
  /** pades: base64 DER, signer first, root last */
  certificate_chain?: string[];
  /** evm: EIP-55 address */
  address?: string;
  /** chip: the key wants the PIN for every signature (PKCS#11 CKA_ALWAYS_AUTHENTICATE); absent when the key could not be read without a login */
  pin_per_signature?: boolean;
  /** chip: the chip keeps no PIN; each sign request with this credential brings chip_pin */
  pin_per_request?: true;
}

export interface CredentialList {
  credentials: Credential[];
}

export interface DesignVariable {
  name: string;
  required: boolean;
  description: string;
}

export interface Design {
  /** Use it as design_key in POST /v1/pades/sign */
  design_key: string;
  name: string;
  variables: DesignVariable[];
}

export interface DesignList {
  designs: Design[];
}

export interface CacheSummary {
  credentials: number;
  designs: number;
}

/** A catalogue entry the sync left out (the others are served), with the reason; also a warning in the service log */
export type SkippedEntry = {
  /** The credential left out, e.g. for a certificate that is not DER X.509 */
  credential_key: string;
  name: string;
  reason: string;
} | {
  /** The design left out, e.g. for a stamp image over 2000 × 2000 pixels or 16 MiB decoded */
  design_key: string;
  name: string;
  reason: string;
};

export interface SyncAnswer {
  ok: true;
  credentials: number;
  designs: number;
  cache: CacheSummary;
  /** Present when the sync left entries out */
  skipped?: SkippedEntry[];
}

export interface ErrorRecord {
  error_id: string;
  /** The message the caller got */
  short: string;
  ts: string;
  /** Kind of error (validation, auth, routing, platform, signing, internal, …) */
  type: string;
  /** The request it belongs to, or null (a refused call has no request) */
  request_id: string | null;
  /** The HTTP status answered, or null for a failure after the 202 */
  status: number | null;
}

export interface ErrorList {
  /** Newest first; only this application key’s records */
  errors: ErrorRecord[];
}

export interface Health {
  ok: true;
  service: "local-signing-service";
  paired: boolean;
  /** null when unpaired or revoked; 0 on the embedded platform */
  tenant_id: number | null;
  version: string;
  commit: string;
  /** 1 before 0.2.0 (no /v1/sync, /v1/results, /v1/errors); 2 from 0.2.0 */
  api_version: number;
  cache: CacheSummary;
  platform?: "remote" | "embedded" | null;
  /** the PKCS#11 chip: present, absent (its token did not answer: pulled out; the next request opens it again once it is back), pin_rejected (the token refused the configured PIN: no login until the operator acts); not given before the chip was used, nor for the software chip */
  chip?: "present" | "absent" | "pin_rejected";
}

export interface ReceiveAnswer {
  ok: true;
  duplicate?: boolean;
}

/** PLATFORM.md "Push" */
export interface ReceiveBody {
  request_id: string;
  status: "DONE" | "ERROR";
}

export interface SignPdfRequest {
  /** The PDF in base64; malformed encodings are repaired by the tolerance rules (spec §7) or refused */
  pdf_base64: string;
  /** A pades credential (GET /v1/credentials) */
  credential_key: string;
  /** Stamp design (GET /v1/designs); absent or null: the credential's default design */
  design_key?: string | null;
  /** Values for the design's variables */
  variables?: Record<string, string> | null;
  /** /Reason of the signature; also fills the design variable of that name */
  reason?: string | null;
  /** /Location of the signature; also fills the design variable of that name */
  location?: string | null;
  /** /Name of the signature; also fills the design variable of that name */
  signer_name?: string | null;
  /** PAdES baseline level; absent or null: the service default (serve --pades-level: B-T with a timestamp authority, else B-B). B-T and above need a timestamp authority */
  level?: "B-B" | "B-T" | "B-LT" | "B-LTA" | null;
  /** Make it a certification signature with DocMDP /P: 1 no changes, 2 form filling and signing, 3 also annotations; refused on a document already signed */
  certify?: 1 | 2 | 3 | null;
  /** The signatory's PIN for this one signature, for a credential whose chip keeps none (pin_per_request in GET /v1/credentials): used for its logins, held in memory only, never stored, logged or echoed; a request still PENDING at a restart ends ERROR. JSON body only. */
  chip_pin?: string | null;
}

export interface VerifyPdfRequest {
  /** The signed PDF in base64 (the tolerance rules of the sign route apply); it is not stored */
  pdf_base64: string;
  /** What a certificate whose revocation status cannot be determined (no usable CRL or OCSP response in the document, RFC 5280 §6.3) means: "require" (absent or null: the default) makes its chain untrusted, as ETSI EN 319 102-1 leaves such a signature indeterminate; "if-available" trusts it and fails only a revocation the data proves. A revoked certificate is never trusted */
  revocation?: "require" | "if-available" | null;
}

export interface SignHashRequest {
  /** keccak256 of the transaction: 64 hex digits, with or without 0x, any case */
  tx_hash: string;
  /** An evm credential (GET /v1/credentials) */
  credential_key: string;
  /** EIP-155 chain id: v = chain_id * 2 + 35 + y_parity; absent or null: v = 27 + y_parity */
  chain_id?: number | null;
  /** The signatory's PIN for this one signature, for a credential whose chip keeps none (pin_per_request in GET /v1/credentials): used for its logins, held in memory only, never stored, logged or echoed; a request still PENDING at a restart ends ERROR. JSON body only. */
  chip_pin?: string | null;
}
