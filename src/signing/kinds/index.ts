/**
 * The kinds of request, by RequestEntry `kind`. Loaded on first use: the PAdES kind pulls in the
 * document work, whose start-up cost nothing on the way to the first /health should pay.
 */
import type { RequestEntry } from '../../store/request-store';
import type { SignatureKind } from '../kind';

const KINDS: { [K in RequestEntry['kind']]: () => Promise<SignatureKind<K>> } = {
  pades: () => import('./pades').then((m) => m.padesKind),
  blockchain: () => import('./evm').then((m) => m.evmKind),
};

export function signatureKind<K extends RequestEntry['kind']>(kind: K): Promise<SignatureKind<K>> {
  return KINDS[kind]() as Promise<SignatureKind<K>>;
}

export type { SignatureKind } from '../kind';

