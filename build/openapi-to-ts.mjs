// TypeScript declarations from the OpenAPI document: one type per component schema and one per
// JSON request body (named after its operationId). The TypeScript client's types are this
// output (clients/typescript/src/api-types.ts), so they cannot drift from what the service
// answers; test/unit/clients/api-types.test.ts regenerates and compares.
// Covers the JSON Schema the document uses: object, array, const, enum, type lists, oneOf, $ref.

const HEADER = `// Generated from the OpenAPI document by build/openapi-to-ts.mjs (npm run client:types).
// Do not edit: change src/api/request-schemas.ts or src/api/response-schemas.ts instead.
`;

/** Component names that would shadow a global in the client (Error). */
const RENAME = { Error: 'ErrorBody' };
const nameOf = (name) => RENAME[name] ?? name;

function literal(v) {
  return v === null ? 'null' : JSON.stringify(v);
}

function comment(text, indent) {
  return text ? `${indent}/** ${String(text).replace(/\*\//g, '*\\/')} */\n` : '';
}

function typeOf(schema, indent) {
  if (schema.$ref) return nameOf(schema.$ref.split('/').pop());
  if ('const' in schema) return literal(schema.const);
  if (schema.enum) return schema.enum.map(literal).join(' | ');
  if (schema.oneOf) return schema.oneOf.map((s) => typeOf(s, indent)).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.map((t) => single(t, schema, indent)).join(' | ');
}

function single(type, schema, indent) {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(typeOf(schema.items ?? {}, indent))}[]`;
    case 'object':
      if (schema.properties) return objectType(schema, indent);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return `Record<string, ${typeOf(schema.additionalProperties, indent)}>`;
      return 'Record<string, unknown>';
    default:
      return 'unknown';
  }
}

function wrap(t) {
  return /[|&]/.test(t) ? `(${t})` : t;
}

function objectType(schema, indent) {
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(schema.properties).map(
    ([name, prop]) => `${comment(prop.description, inner)}${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(prop, inner)};`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function declaration(name, schema) {
  const body = typeOf(schema, '');
  const doc = comment(schema.description, '');
  return schema.type === 'object' && schema.properties ? `${doc}export interface ${name} ${body}\n` : `${doc}export type ${name} = ${body};\n`;
}

/** The declarations of `doc`, as one module's text. */
export function openApiToTs(doc) {
  const out = [HEADER];
  for (const [name, schema] of Object.entries(doc.components.schemas)) out.push(declaration(nameOf(name), schema));
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema || schema.$ref) continue;
      out.push(declaration(`${op.operationId[0].toUpperCase()}${op.operationId.slice(1)}Request`, schema));
    }
  }
  return out.join('\n');
}
