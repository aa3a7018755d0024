import { LocalsignError, type ErrorKind } from '../domain/errors';

/**
 * The messages between a pool (pool.ts) and its workers (serve-worker.ts), both ways. Tasks cross
 * as they are (structured clone for threads, V8 serialization for processes); a worker answers
 * each in the order it was posted, which is how the pool matches answers to tasks.
 */

/** An error as it crosses the thread boundary: its kind and type survive (a ChipError stays a 502). */
export interface WorkerError {
  kind: ErrorKind;
  type: string;
  message: string;
}

/** `retire`: the worker asks to be replaced once idle (it holds more memory than it should keep). */
export type WorkerAnswer<R> = ({ ok: true; value: R } | { ok: false; error: WorkerError }) & { retire?: true };

export function errorToWorker(error: unknown): WorkerError {
  if (error instanceof LocalsignError) return { kind: error.kind, type: error.type, message: error.message };
  return { kind: 'internal', type: 'signing', message: error instanceof Error ? error.message : String(error) };
}

export function errorFromWorker(e: WorkerError): LocalsignError {
  return new LocalsignError(e.kind, e.message, { type: e.type });
}

/** A worker process's first message: it listens now (handles.ts holds tasks until then). */
export const READY = { ready: 'localsign-worker' } as const;

export function isReady(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { ready?: unknown }).ready === READY.ready;
}

/** The pool's word to a worker: the `seq`th task posted to it is not to run (WorkerPool.cancel). */
const CANCEL = 'localsign-cancel';
export function cancelMessage(seq: number): { [CANCEL]: number } {
  return { [CANCEL]: seq };
}
export function cancelledSeq(message: unknown): number | null {
  const seq = typeof message === 'object' && message !== null ? (message as { [CANCEL]?: unknown })[CANCEL] : undefined;
  return typeof seq === 'number' ? seq : null;
}
