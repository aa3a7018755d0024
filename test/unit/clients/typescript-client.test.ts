import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { openApiToTs } from '../../../build/openapi-to-ts.mjs';
import { buildOpenApiDocument } from '../../../src/api/openapi';
import { OPERATIONS } from '../../../src/api/operations';
import { LocalsignApiError, LocalsignClient } from '../../../clients/typescript/src/index';

const CLIENT = resolve(__dirname, '../../../clients/typescript');

describe('clients/typescript', () => {
  it('its API types are the OpenAPI document, as generated (npm run build && npm run client:types)', () => {
    const committed = readFileSync(join(CLIENT, 'src/api-types.ts'), 'utf8');
    expect(committed).toBe((openApiToTs as (doc: unknown) => string)(JSON.parse(JSON.stringify(buildOpenApiDocument()))));
  });

  it('has a method for every operation an application calls, named by its operationId', () => {
    const forApplications = OPERATIONS.map((op) => op.id as string).filter((id) => id !== 'openapi' && id !== 'receive' && id !== 'demoCrl');
    const methods = Object.getOwnPropertyNames(LocalsignClient.prototype);
    expect(forApplications.filter((id) => !methods.includes(id))).toEqual([]);
  });

  it('gives a kind to every error status the OpenAPI document lists (docs/integrators.md "Errors")', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
    const statuses = new Set<number>();
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) for (const code of Object.keys(op.responses ?? {})) if (Number(code) >= 400) statuses.add(Number(code));
    expect(statuses.size).toBeGreaterThan(5);
    expect([...statuses].sort().filter((status) => new LocalsignApiError('x', status, null).kind === 'unknown')).toEqual([]);
  });

  it('has no runtime dependency and imports nothing outside its own src/ (Node 20+, Electron)', () => {
    const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: unknown };
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
    expect(pkg.peerDependencies).toBeUndefined();
    const wrong: string[] = [];
    for (const file of readdirSync(join(CLIENT, 'src'))) {
      const source = readFileSync(join(CLIENT, 'src', file), 'utf8');
      for (const m of source.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
        // Relative, with the .js a Node ESM import of the compiled package needs.
        if (!/^\.\/[a-z0-9-]+\.js$/.test(m[1]!)) wrong.push(`${file} imports ${m[1]}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
