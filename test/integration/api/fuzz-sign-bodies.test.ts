// Property test: whatever a caller sends to the sign routes is a 202 or a 4xx with a message, never a 500 (CONTRACT: every bad input gets a clear 422).
import fc from 'fast-check';
import { it, expect } from 'vitest';
import { authed, initEmbeddedWithWrapper, startServiceProcess } from '../../helpers/service-process';
import { makeTmpHome } from '../../helpers/tmp-home';
it('answers any sign body with a 4xx or 202, never a 5xx (property, 400 random bodies plus raw garbage)', async () => {
  const home = makeTmpHome();
  const w = initEmbeddedWithWrapper(home.home);
  const s = await startServiceProcess({ home: home.home });
  const call = authed(s.url, w);
  const creds = ((await (await call('/v1/credentials')).json()) as { credentials: { credential_key: string }[] }).credentials;
  const keys = creds.map((c) => c.credential_key);
  const bad: string[] = [];
  await fc.assert(fc.asyncProperty(
    fc.constantFrom('/v1/pades/sign', '/v1/blockchain/sign'),
    fc.record({
      pdf_base64: fc.oneof(fc.string(), fc.constant('JVBERi0xLjQK'), fc.jsonValue()),
      credential_key: fc.oneof(fc.constantFrom(...keys), fc.jsonValue()),
      tx_hash: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.jsonValue()),
      chain_id: fc.oneof(fc.integer(), fc.jsonValue()),
      design_key: fc.oneof(fc.string(), fc.jsonValue()),
      variables: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.jsonValue()),
      reason: fc.jsonValue(),
    }, { requiredKeys: [] }),
    async (path, body) => {
      const res = await call(path, { method: 'POST', body: JSON.stringify(body) });
      if (res.status >= 500) bad.push(`${path} ${res.status} ${JSON.stringify(body).slice(0, 200)} ${await res.text()}`);
    }), { numRuns: 400 });
  // raw garbage bodies
  for (const raw of ['', 'null', '[]', '"x"', '{', '{"a":', '\u0000', '{"pdf_base64":"' + 'A'.repeat(2_000_000) + '"}']) {
    for (const path of ['/v1/pades/sign', '/v1/blockchain/sign']) {
      const res = await call(path, { method: 'POST', body: raw });
      if (res.status >= 500) bad.push(`${path} ${res.status} raw ${raw.slice(0, 30)}`);
    }
  }
  await s.stop(); home.cleanup();
  expect(bad).toEqual([]);
}, 120000);
