/**
 * Stamp designs of the embedded platform (tenant 0), which live in embedded.json: what
 * `design:add|remove` change, so no operator edits JSON by hand. A design is
 * checked by design-check.ts (the same check a platform's designs pass) plus what only an
 * operator's file can get wrong: unknown fields and placeholders that no variable fills.
 */
import { newUuid } from '../config/ids';
import { InvalidInputError, LocalsignError } from '../domain/errors';
import { FIELD_PLACEHOLDERS } from '../domain/pades';
import { listPlaceholders } from './stamp-text';
import type { CachedDesign, CatalogCache } from '../store/catalog-types';
import type { JsonCollection } from '../store/json-collection';
import { checkDesign, checkDesignImage } from './design-check';
import type { EmbeddedConfig } from './embedded-config';

/** Placeholders the service fills from the request itself (signing/kinds/pades.ts). */
export const BUILT_IN_VARIABLES = [...FIELD_PLACEHOLDERS, 'date'] as const;
const TOP_LEVEL = ['design_key', 'name', 'variables', 'stamp'];

/**
 * A design as an operator wrote it (the logo already read into `stamp.image_png_base64`), checked
 * and completed: a design_key when it has none, descriptions default to "".
 */
export function parseOperatorDesign(input: unknown, origin: string): CachedDesign {
  const fail = (problem: string) => new InvalidInputError(`${origin}: ${problem}`);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw fail('a design must be a JSON object');
  const raw = input as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((k) => !TOP_LEVEL.includes(k));
  if (unknown.length > 0) throw fail(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; a design has ${TOP_LEVEL.join(', ')} (and "logo": a PNG file)`);
  const design = { ...raw, design_key: raw.design_key ?? newUuid(), variables: raw.variables ?? [] } as Record<string, unknown>;
  const problem = checkDesign(design);
  if (problem) throw fail(problem);
  const checked = design as unknown as CachedDesign;
  // An operator's logo over the caps is refused here, at design:add, not met at every signature.
  const imageProblem = checkDesignImage(checked);
  if (imageProblem) throw fail(imageProblem);
  const declared = new Set<string>([...checked.variables.map((v) => v.name), ...BUILT_IN_VARIABLES]);
  for (const [i, line] of checked.stamp.lines.entries()) {
    const missing = listPlaceholders(line.text).filter((n) => !declared.has(n));
    if (missing.length > 0) {
      throw fail(`stamp.lines[${i}].text uses {{${missing[0]}}}, which is not a variable of the design (declare it in "variables", or use ${BUILT_IN_VARIABLES.join(', ')})`);
    }
  }
  return { ...checked, variables: checked.variables.map((v) => ({ name: v.name, required: v.required, description: v.description ?? '' })) };
}

/** Adds (or with `replace`, replaces) a design; `makeDefault`: the pades credentials' default from now on. */
export function addDesign(file: JsonCollection<EmbeddedConfig>, design: CachedDesign, o: { replace: boolean; makeDefault: boolean }): { replaced: boolean } {
  return file.update((cfg) => {
    const at = cfg.designs.findIndex((d) => d.design_key === design.design_key);
    if (at >= 0 && !o.replace) throw new InvalidInputError(`design ${design.design_key} exists ("${cfg.designs[at]!.name}"); --replace replaces it`);
    if (at >= 0) cfg.designs[at] = design;
    else cfg.designs.push(design);
    if (o.makeDefault) cfg.default_design_key = design.design_key;
    return { replaced: at >= 0 };
  });
}

/**
 * Removes a design. The default design of the credentials is refused unless `force` (then
 * signatures without a design_key become invisible): a stamp vanishing is no side effect to have
 * by accident.
 */
export function removeDesign(file: JsonCollection<EmbeddedConfig>, designKey: string, o: { force: boolean }): CachedDesign {
  return file.update((cfg) => {
    const at = cfg.designs.findIndex((d) => d.design_key === designKey);
    if (at < 0) throw new LocalsignError('not_found', `no design ${designKey.slice(0, 64)} (design:list shows them)`);
    if (cfg.default_design_key === designKey && !o.force) {
      throw new InvalidInputError(`design ${designKey} is the credentials' default: without it, signatures with no design_key are invisible; --force removes it anyway (or make another the default first: design:add FILE --default)`);
    }
    if (cfg.default_design_key === designKey) cfg.default_design_key = null;
    return cfg.designs.splice(at, 1)[0]!;
  });
}

/**
 * The cache as a sync of the embedded platform would leave it for designs (embedded-catalog.ts):
 * its designs, and the default on every credential of a chip key with a certificate (the pades
 * ones it makes); no chip needed, so a token that is unplugged does not stop a design change. The
 * running service re-reads cache.json on change.
 */
export function applyDesignsToCache(cache: JsonCollection<CatalogCache>, cfg: EmbeddedConfig): void {
  cache.update((c) => {
    c.designs = cfg.designs;
    for (const cred of c.credentials) if (cred.certificate_chain && cred.chip_key_id) cred.default_design_key = cfg.default_design_key;
  });
}
