/**
 * The engines, by the name a credential gives (PLATFORM.md `engine`). A request keeps the engine
 * of the credential it was accepted with (its params' `engine`): chosen once, at accept. A new
 * engine is one file here and one line in BUILT_IN_ENGINES (or, for a test, one entry of the
 * context's `engines` option: context.ts).
 */
import { ByName } from '../by-name';
import type { EngineDefinition, EngineDeps, EngineFacts, SigningEngine } from '../engine';
import { chipEngine } from './chip';
import { platformEngine } from './platform';

export const BUILT_IN_ENGINES: readonly EngineDefinition[] = [chipEngine, platformEngine];

/** The engines of one service: their facts at once, each engine made on first use. */
export class EngineTable {
  private readonly definitions: ByName<EngineDefinition>;
  private readonly made = new Map<string, SigningEngine>();

  constructor(definitions: readonly EngineDefinition[], private readonly deps: EngineDeps) {
    this.definitions = new ByName(definitions, 'signing engine');
  }

  /** Every engine's facts, in registration order. */
  list(): readonly EngineFacts[] {
    return this.definitions.list();
  }

  facts(name: string): EngineFacts | undefined {
    return this.definitions.get(name);
  }

  /** The engine `name`, made once; a SigningError for a name no engine has (a request from another build). */
  engine(name: string): SigningEngine {
    let engine = this.made.get(name);
    if (!engine) {
      const { make, ...facts } = this.definitions.require(name);
      engine = { ...facts, ...make(this.deps) };
      this.made.set(name, engine);
    }
    return engine;
  }
}

export type { DigestRequest, EngineDefinition, EngineDeps, EngineFacts, KeyAlgorithm, RawSignature, SigningEngine } from '../engine';
