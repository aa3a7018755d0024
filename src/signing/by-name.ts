import { SigningError } from '../domain/errors';

/**
 * Kinds or engines by their names (kinds/index.ts, engines/index.ts): each name once, in the
 * order registered, and a request naming one this service lacks (written by another build, or
 * before a test's own was registered) refused in words.
 */
export class ByName<T extends { readonly name: string }> {
  private readonly byName = new Map<string, T>();

  constructor(items: readonly T[], private readonly what: string) {
    for (const item of items) {
      if (this.byName.has(item.name)) throw new Error(`two ${what}s are named ${item.name}`);
      this.byName.set(item.name, item);
    }
  }

  /** Every one, in registration order. */
  list(): readonly T[] {
    return [...this.byName.values()];
  }

  get(name: string): T | undefined {
    return this.byName.get(name);
  }

  /** The one named `name`; a SigningError when there is none. */
  require(name: string): T {
    const item = this.byName.get(name);
    if (!item) throw new SigningError(`this service has no ${this.what} "${name.slice(0, 64)}"`);
    return item;
  }
}
