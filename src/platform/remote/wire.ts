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
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
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

export function parseCredentials(body: unknown): CachedCredential[] {
  return list(obj(body, 'a credential list'), 'credentials', 'a credential list').map((item, i) => {
    const what = `credential #${i + 1}`;
    const c = obj(item, what);
    const type = c.type;
    const engine = c.engine;
    if (type !== 'pades' && type !== 'evm') throw new PlatformError(`the platform sent ${what} of an unknown type (expected pades or evm)`);
    if (engine !== 'platform' && engine !== 'chip') throw new PlatformError(`the platform sent ${what} with an unknown engine (expected platform or chip)`);
    const out: CachedCredential = {
      credential_key: str(c, 'credential_key', what),
      type,
      name: optStr(c, 'name', what) ?? str(c, 'credential_key', what),
      engine,
      default_design_key: type === 'evm' ? null : optStr(c, 'default_design_key', what),
    };
    if (type === 'pades') {
      const chain = list(c, 'certificate_chain', what);
      if (chain.length === 0 || !chain.every((x) => typeof x === 'string' && BASE64.test(x))) throw new PlatformError(`the platform sent ${what} with a malformed certificate_chain (base64 DER, signer first)`);
      out.certificate_chain = chain as string[];
    } else {
      out.address = str(c, 'address', what, ADDRESS);
    }
    if (engine === 'chip') out.chip_key_id = str(c, 'chip_key_id', what, HEX).toLowerCase();
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

/** A signing result, pushed to /receive or polled (PLATFORM.md "Remote signing"). */
export type PlatformResult =
  | { status: 'PENDING' }
  | { status: 'ERROR'; error: string }
  | { status: 'DONE'; signature: Uint8Array }
  | { status: 'DONE'; r: string; s: string; recoveryId: 0 | 1 };

export function parseResult(body: unknown, kind: 'pades' | 'blockchain'): PlatformResult {
  const o = obj(body, 'a signing result');
  switch (o.status) {
    case 'PENDING':
      return { status: 'PENDING' };
    case 'ERROR':
      return { status: 'ERROR', error: (optStr(o, 'error', 'a signing result') ?? 'no reason given').slice(0, 300) };
    case 'DONE':
      if (kind === 'pades') {
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
