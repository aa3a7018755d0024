/**
 * The JSON the remote platform sends (PLATFORM.md), checked field by field before anything uses
 * it: the platform is someone else's system, and a malformed catalogue or result must be a clear
 * PlatformError naming the field, never a crash later in a job.
 */
import { PlatformError } from '../../domain/errors';
import type { CachedCredential, CachedDesign } from '../../store/catalog-types';
import { checkDesign } from '../design-check';

type Obj = Record<string, unknown>;

function obj(v: unknown, what: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new PlatformError(`the platform sent ${what} that is not a JSON object`);
  return v as Obj;
}

function str(o: Obj, name: string, what: string, pattern?: RegExp): string {
  const v = o[name];
  if (typeof v !== 'string' || v === '' || (pattern && !pattern.test(v))) throw new PlatformError(`the platform sent ${what} with a missing or malformed ${name}`);
  return v;
}

function optStr(o: Obj, name: string, what: string): string | null {
  const v = o[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new PlatformError(`the platform sent ${what} with a malformed ${name}`);
  return v;
}

function list(o: Obj, name: string, what: string): unknown[] {
  const v = o[name];
  if (!Array.isArray(v)) throw new PlatformError(`the platform sent ${what} without a ${name} list`);
  return v;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HEX = /^[0-9a-fA-F]+$/;
const HEX32 = /^0x[0-9a-f]{64}$/;

export interface PairAnswer {
  tenant_id: number;
  agent_id: string;
  agent_secret: string;
}

export function parsePairAnswer(body: unknown): PairAnswer {
  const o = obj(body, 'a pairing answer');
  const tenant = o.tenant_id;
  if (typeof tenant !== 'number' || !Number.isSafeInteger(tenant) || tenant < 0) throw new PlatformError('the platform sent a pairing answer with a malformed tenant_id');
  return { tenant_id: tenant, agent_id: str(o, 'agent_id', 'a pairing answer'), agent_secret: str(o, 'agent_secret', 'a pairing answer') };
}

/**
 * A catalogue entry as a credential type reads its own fields from it (PLATFORM.md "Catalogue":
 * `certificate_chain` for pades, `address` for evm): each read checked, a malformed field a
 * PlatformError naming the entry and the field.
 */
export interface CatalogueEntry {
  /** A non-empty string, matching `pattern` when given. */
  text(name: string, pattern?: RegExp): string;
  /** A list, each item checked by `item`; `shape` says what was expected when one is not. */
  list(name: string, item: (v: unknown) => boolean, shape: string): unknown[];
}

/** What the catalogue knows of a credential type; the kinds that sign with it define it (signing/kinds/). */
export interface CredentialTypeRules {
  /** PLATFORM.md `type`. */
  readonly name: string;
  /** Its requests may name a design: `default_design_key` is kept (null for the others). */
  readonly takesDesign: boolean;
  /** Its own fields, read from the platform's entry. */
  readFields(entry: CatalogueEntry): Partial<CachedCredential>;
  /**
   * For a credential whose key is on this machine's chip: why `key` cannot be its key, or what
   * the cache keeps of the key for signing (the recovery check's public key for evm).
   */
  bindChipKey(credential: CachedCredential, key: { algorithm: string; publicKey: Uint8Array }): { problem: string } | { fields: Partial<CachedCredential> };
}

/** What the catalogue knows of an engine (signing/engines/): its name, and whether its keys are on this machine's chip (`chip_key_id`). */
export interface EngineRules {
  readonly name: string;
  readonly onChip: boolean;
}

/** The credential types and engines this service signs with: a credential of any other is refused. */
export interface CatalogueRules {
  types: ReadonlyMap<string, CredentialTypeRules>;
  engines: ReadonlyMap<string, EngineRules>;
}

const expected = (names: Iterable<string>) => [...names].join(' or ');

export function parseCredentials(body: unknown, rules: CatalogueRules): CachedCredential[] {
  return list(obj(body, 'a credential list'), 'credentials', 'a credential list').map((item, i) => {
    const what = `credential #${i + 1}`;
    const c = obj(item, what);
    const type = typeof c.type === 'string' ? rules.types.get(c.type) : undefined;
    const engine = typeof c.engine === 'string' ? rules.engines.get(c.engine) : undefined;
    if (!type) throw new PlatformError(`the platform sent ${what} of an unknown type (expected ${expected(rules.types.keys())})`);
    if (!engine) throw new PlatformError(`the platform sent ${what} with an unknown engine (expected ${expected(rules.engines.keys())})`);
    const entry: CatalogueEntry = {
      text: (name, pattern) => str(c, name, what, pattern),
      list: (name, item, shape) => {
        const v = list(c, name, what);
        if (v.length === 0 || !v.every(item)) throw new PlatformError(`the platform sent ${what} with a malformed ${name} (${shape})`);
        return v;
      },
    };
    const out: CachedCredential = {
      credential_key: str(c, 'credential_key', what),
      type: type.name,
      name: optStr(c, 'name', what) ?? str(c, 'credential_key', what),
      engine: engine.name,
      default_design_key: type.takesDesign ? optStr(c, 'default_design_key', what) : null,
      ...type.readFields(entry),
    };
    if (engine.onChip) out.chip_key_id = str(c, 'chip_key_id', what, HEX).toLowerCase();
    return out;
  });
}

export function parseDesigns(body: unknown): CachedDesign[] {
  return list(obj(body, 'a design list'), 'designs', 'a design list').map((item, i) => {
    const what = `design #${i + 1}`;
    const problem = checkDesign(item);
    if (problem) throw new PlatformError(`the platform sent ${what} that is not valid: ${problem}`);
    return item as CachedDesign;
  });
}

/**
 * A signing result, pushed to /receive or polled (PLATFORM.md "Remote signing"), in the answer
 * shape the request's kind gives (DigestLabel `answer`): `signature_base64`, or r, s, recovery_id.
 */
export type PlatformResult =
  | { status: 'PENDING' }
  | { status: 'ERROR'; error: string }
  | { status: 'DONE'; signature: Uint8Array }
  | { status: 'DONE'; r: string; s: string; recoveryId: 0 | 1 };

export function parseResult(body: unknown, answer: 'signature' | 'recoverable'): PlatformResult {
  const o = obj(body, 'a signing result');
  switch (o.status) {
    case 'PENDING':
      return { status: 'PENDING' };
    case 'ERROR':
      return { status: 'ERROR', error: (optStr(o, 'error', 'a signing result') ?? 'no reason given').slice(0, 300) };
    case 'DONE':
      if (answer === 'signature') {
        const sig = str(o, 'signature_base64', 'a PAdES result', BASE64);
        return { status: 'DONE', signature: new Uint8Array(Buffer.from(sig, 'base64')) };
      } else {
        const r = str(o, 'r', 'a blockchain result', HEX32);
        const s = str(o, 's', 'a blockchain result', HEX32);
        const rid = o.recovery_id;
        if (rid !== 0 && rid !== 1) throw new PlatformError('the platform sent a blockchain result with a recovery_id other than 0 or 1');
        return { status: 'DONE', r, s, recoveryId: rid };
      }
    default:
      throw new PlatformError('the platform sent a signing result with an unknown status');
  }
}

export function parseIncidentAnswer(body: unknown): string {
  const o = obj(body, 'an incident answer');
  const id = o.incident_id;
  if ((typeof id !== 'string' || id === '') && typeof id !== 'number') throw new PlatformError('the platform sent an incident answer without incident_id');
  return String(id);
}
