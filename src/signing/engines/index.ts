/**
 * The engines, by the name a credential gives (PLATFORM.md `engine`). A request keeps the engine
 * of the credential it was accepted with (its params' `engine`): chosen once, at accept. A new
 * engine is one file here and one line in BUILT_IN_ENGINES (or, for a test, one entry of the
 * context's `engines` option: context.ts).
 */
import { SigningError } from '../../domain/errors';
import type { EngineDefinition, EngineDeps, EngineFacts, SigningEngine } from '../engine';
import { chipEngine } from './chip';
import { platformEngine } from './platform';

export const BUILT_IN_ENGINES: readonly EngineDefinition[] = [chipEngine, platformEngine];

/** The engines of one service: their facts at once, each engine made on first use. */
export class EngineTable {
  private readonly byName = new Map<string, EngineDefinition>();
  private readonly made = new Map<string, SigningEngine>();

  constructor(definitions: readonly EngineDefinition[], private readonly deps: EngineDeps) {
    for (const d of definitions) {
      if (this.byName.has(d.name)) throw new Error(`two engines are named ${d.name}`);
      this.byName.set(d.name, d);
    }
  }

  /** Every engine's facts, in registration order. */
  list(): readonly EngineFacts[] {
    return [...this.byName.values()];
  }

  facts(name: string): EngineFacts | undefined {
    return this.byName.get(name);
  }

  /** The engine `name`, made once; a SigningError for a name no engine has (a request from another build). */
  engine(name: string): SigningEngine {
    let engine = this.made.get(name);
    if (!engine) {
      const d = this.byName.get(name);
      if (!d) throw new SigningError(`this service has no signing engine "${name.slice(0, 64)}"`);
      const { make, ...facts } = d;
      engine = { ...facts, ...make(this.deps) };
      this.made.set(name, engine);
    }
    return engine;
  }
}

export type { DigestRequest, EngineDefinition, EngineDeps, EngineFacts, KeyAlgorithm, RawSignature, SigningEngine } from '../engine';
