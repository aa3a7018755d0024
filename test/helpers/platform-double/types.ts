/**
 * Shapes shared by the platform double (its own process) and the test-side helper
 * (`../platform-double.ts`). Wire shapes are PLATFORM.md's, snake_case as on the wire; control
 * shapes are the double's own test API under `/__control/`.
 */

export interface WireCredential {
  credential_key: string;
  type: 'pades' | 'evm';
  name: string;
  /** PLATFORM.md names "platform" and "chip"; a service may register more (test/integration/seams/). */
  engine: string;
  default_design_key: string | null;
  /** PAdES: base64 DER, signer first, root last. */
  certificate_chain?: string[];
  /** EVM: EIP-55 address. */
  address?: string;
  /** Engine "chip" only: hex CKA_ID. */
  chip_key_id?: string;
}

export interface WireDesign {
  design_key: string;
  name: string;
  variables: { name: string; required: boolean; description: string }[];
  stamp: {
    page: 'first' | 'last' | number;
    x: number;
    y: number;
    width: number;
    height: number;
    lines: { text: string; size: number }[];
    image_png_base64?: string;
  };
}

export interface SignBody {
  request_id: string;
  credential_key: string;
  kind: 'pades' | 'blockchain';
  digest_hex: string;
  digest_algorithm: 'sha256' | 'keccak256';
  chain_id: number | null;
}

/** What push and poll carry (PLATFORM.md "Remote signing"); poll adds PENDING. */
export type SignResult =
  | { request_id: string; status: 'PENDING' }
  | { request_id: string; status: 'DONE'; signature_base64: string }
  | { request_id: string; status: 'DONE'; r: string; s: string; recovery_id: 0 | 1 }
  | { request_id: string; status: 'ERROR'; error: string };

/** A failure switch. `path` names an agent route (or every one); `times` defaults to unlimited. */
export interface Fault {
  path: AgentRoute | '*';
  /** An HTTP status to answer with; `drop`: destroy the socket unanswered; `drop-after`: do the
   * work, then destroy the socket instead of answering; `hang`: never answer. */
  action: number | 'drop' | 'drop-after' | 'hang';
  times?: number;
}

export type AgentRoute = 'pair' | 'credentials' | 'designs' | 'sign' | 'results' | 'incidents';

export type PushMode = 'normal' | 'duplicate' | 'stale' | 'forged';

export interface Settings {
  /** false: never push (the service must poll). */
  push_enabled: boolean;
  /** normal; duplicate: the same delivery twice; stale: timestamp 400 s old; forged: HMAC under a wrong key. */
  push_mode: PushMode;
  /** auto: DONE `delay_ms` after the sign call; manual: PENDING until approve/reject. */
  approval: { mode: 'auto'; delay_ms: number } | { mode: 'manual' };
  /** Sign with a key that is not the credential's (valid shape, wrong signer). */
  wrong_key: boolean;
}

export interface AgentRecord {
  agent_id: string;
  agent_secret: string;
  tenant_id: number;
  callback_url: string | null;
  machine: { hostname: string; os: string; arch: string; version: string };
  paired_at: string;
  revoked: boolean;
}

export interface PairCall {
  at: string;
  body: unknown;
  status: number;
  agent_id: string | null;
}

export interface SignRecord {
  request_id: string;
  agent_id: string;
  body: SignBody;
  received_at: string;
  /** How many sign calls carried this request_id (retries included). */
  times_received: number;
  result: SignResult;
  /** Which key signed: the credential's, or the wrong one (Settings.wrong_key). */
  signed_with: 'credential' | 'wrong-key' | null;
}

export interface PushAttempt {
  request_id: string;
  url: string;
  mode: PushMode;
  timestamp: string;
  signature: string;
  body: string;
  /** The receiver's HTTP status, or null when the delivery failed (`error` says why). */
  status: number | null;
  response_body: string | null;
  error: string | null;
  at: string;
}

export interface IncidentRecord {
  incident_id: string;
  agent_id: string;
  body: { request_id: string; errors: unknown[] };
  at: string;
}

export interface LogEntry {
  at: string;
  method: string;
  path: string;
  /** Request headers without `authorization` (the bearer is a secret). */
  headers: Record<string, string | string[] | undefined>;
  /** The agent the bearer named, if any. */
  agent_id: string | null;
  body: unknown;
  status: number | null;
  fault: Fault['action'] | null;
}

/** `GET /__control/info`: what a test needs to trust and check the double's signatures. */
export interface DoubleInfo {
  url: string;
  tenant_id: number;
  /** The PAdES root (both signers chain to it), PEM text and files. */
  root_pem: string;
  root_pem_path: string;
  root_der_path: string;
  /** HTTPS mode: the CA that issued the TLS server certificate (for NODE_EXTRA_CA_CERTS). */
  tls_ca_pem_path: string | null;
  pki_dir: string;
  keys: {
    rsa: { credential_key: string; key_pem_path: string; chain_base64: string[] };
    p256: { credential_key: string; key_pem_path: string; chain_base64: string[] };
    wallet: { credential_key: string; address: string; private_key_hex: string };
    designs: { standard: string; approval: string };
  };
}
