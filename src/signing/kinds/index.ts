/**
 * The kinds of request, by RequestEntry `kind`. A kind's table is read synchronously (accept, the
 * routes, retention, recovery, the catalogue, the platform client); its job loads on first use
 * (the PAdES one pulls in the document work, whose start-up cost nothing on the way to the first
 * /health should pay). A new kind is one file here and one line in BUILT_IN_KINDS (or, for a test,
 * one entry of the context's `kinds` option: context.ts).
 */
import { ByName } from '../by-name';
import type { CatalogueRules } from '../../platform/remote';
import type { EngineFacts } from '../engine';
import type { CredentialType, SignatureKind } from '../kind';
import { evmKind } from './evm';
import { padesKind } from './pades';

export const BUILT_IN_KINDS: readonly SignatureKind[] = [padesKind, evmKind];

/** The kinds of one service, by name, and the credential types they sign with. */
export class KindTable extends ByName<SignatureKind> {
  private readonly types = new Map<string, CredentialType>();

  constructor(kinds: readonly SignatureKind[]) {
    super(kinds, 'kind of request');
    for (const k of kinds) {
      const type = this.types.get(k.credential.name);
      if (type && type !== k.credential) throw new Error(`two credential types are named ${k.credential.name}`);
      this.types.set(k.credential.name, k.credential);
    }
  }

  /** The credential types the kinds sign with, by the catalogue's `type`, in registration order. */
  credentialTypes(): ReadonlyMap<string, CredentialType> {
    return this.types;
  }

  /** What the platform's catalogue is read with: these kinds' credential types, and `engines`. */
  catalogueRules(engines: readonly EngineFacts[]): CatalogueRules {
    return { types: this.types, engines: new Map(engines.map((e) => [e.name, e])) };
  }

  /** Whether a request of kind `name` has a document on disk (retention, recovery). */
  holdsDocument(name: string): boolean {
    return this.get(name)?.document != null;
  }
}

export { acceptPades, padesKind, type PadesParams, type PadesSignInput } from './pades';
export { BLOCKCHAIN_SIGN_BODY, evmCredentialOf, evmCredentials, evmKind, signRecoverable, type EvmParams } from './evm';
export { kindRoute, type CredentialType, type KindJob, type KindRoute, type SignatureKind } from '../kind';
