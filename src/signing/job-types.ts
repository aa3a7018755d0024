import type { Chip } from '../chip/types';
import type { CachedCredential, CachedDesign } from '../store/catalog-types';
import type { RequestEntry } from '../store/request-store';
import type { SignTask, SignTaskResult } from './sign-tasks';

/** What a job needs, passed in (no module reaches for globals): easy to wire, easy to test. */
export interface JobDeps {
  now: () => Date;
  runTask: (task: SignTask) => Promise<SignTaskResult>;
  getChip: () => Promise<Chip>;
  findCredential: (key: string) => CachedCredential | undefined;
  findDesign: (key: string) => CachedDesign | undefined;
  readWorkFile: (requestId: string) => Promise<Buffer | null>;
  writeResult: (requestId: string, bytes: Uint8Array) => Promise<void>;
  removeWorkFile: (requestId: string) => void;
  tsaUrl: string | null;
}

export interface JobOutcome {
  result: Record<string, unknown>;
  /** For the audit record: the tx hash, or SHA-256 of the CMS signed attributes. */
  digestHex: string;
  /** Writes what the result needs on disk (the signed PDF); run by the registry before DONE. */
  persist?: () => Promise<void>;
}

export type Job = (entry: RequestEntry, deps: JobDeps) => Promise<JobOutcome>;
