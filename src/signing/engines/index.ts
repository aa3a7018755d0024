/**
 * The engines, by the name a credential gives (PLATFORM.md `engine`). A request keeps the engine
 * of the credential it was accepted with (RequestEntry params.engine): chosen once, at accept.
 */
import type { EngineName } from '../../domain/signing';
import type { SigningEngine } from '../engine';
import { chipEngine, type ChipEngineDeps } from './chip';
import { platformEngine } from './platform';
import type { PlatformSigningDeps } from '../../platform/remote';

export interface EngineDeps extends ChipEngineDeps {
  platform: PlatformSigningDeps;
}

const ENGINES: Record<EngineName, (deps: EngineDeps) => SigningEngine> = {
  chip: (deps) => chipEngine(deps),
  platform: (deps) => platformEngine(deps.platform),
};

/** The engines of one service, made once. */
export function signingEngines(deps: EngineDeps): (name: EngineName) => SigningEngine {
  const made = new Map<EngineName, SigningEngine>();
  return (name) => {
    let engine = made.get(name);
    if (!engine) {
      engine = ENGINES[name](deps);
      made.set(name, engine);
    }
    return engine;
  };
}

export type { SignatureRequest, Signature, SigningEngine } from '../engine';

