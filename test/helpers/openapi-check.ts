import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

type Json = Record<string, unknown>;

/**
 * Answers checked against the OpenAPI document with ajv (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1). Strict: every object schema that does not say otherwise is closed, so a field a
 * route sends without the document naming it fails the test (the document stays open for
 * clients, which must ignore fields added later).
 */
export function responseChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const components = structuredClone((doc.components as Json).schemas as Json);
  for (const schema of Object.values(components)) close(schema);
  ajv.addSchema({ $id: 'localsign', components: { schemas: components } });
  const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Json }> }> }>>;

  return {
    /** Fails the test when `body` is not what the document says `method path` answers with `status`. */
    check(method: string, path: string, status: number, body: unknown): void {
      const op = paths[path]?.[method.toLowerCase()];
      expect(op, `${method} ${path} is not in the document`).toBeDefined();
      const response = op!.responses[String(status)];
      expect(response, `${method} ${path} answered ${status}, which the document does not list`).toBeDefined();
      const schema = close(rebase(structuredClone(response!.content!['application/json']!.schema)));
      const validate = ajv.compile(schema);
      const ok = validate(body);
      expect(ok, `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
    },
  };
}

/** `#/components/...` refs point into the schema registered as `localsign`. */
function rebase(schema: Json): Json {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      if (typeof o.$ref === 'string' && o.$ref.startsWith('#/')) o.$ref = `localsign${o.$ref}`;
      Object.values(o).forEach(walk);
    }
  };
  walk(schema);
  return schema;
}

function close(schema: unknown): Json {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      if (o.type === 'object' && o.properties && o.additionalProperties === undefined) o.additionalProperties = false;
      Object.values(o).forEach(walk);
    }
  };
  walk(schema);
  return schema as Json;
}
