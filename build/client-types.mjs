// Writes clients/typescript/src/api-types.ts from dist/openapi.json (run `npm run build` first):
// `npm run client:types`.
import { readFileSync, writeFileSync } from 'node:fs';
import { openApiToTs } from './openapi-to-ts.mjs';

const doc = JSON.parse(readFileSync('dist/openapi.json', 'utf8'));
writeFileSync('clients/typescript/src/api-types.ts', openApiToTs(doc));
console.log('wrote clients/typescript/src/api-types.ts');
