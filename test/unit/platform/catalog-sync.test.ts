import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../../src/domain/errors';
import { syncCatalog, type CatalogSource, type FetchedCatalog } from '../../../src/platform/catalog-sync';
import { checkDesign } from '../../../src/platform/design-check';
import { parseOperatorDesign } from '../../../src/platform/embedded-designs';
import { describeCertificate } from '../../../src/pki/describe-certificate';
import type { CachedCredential, CachedDesign, CatalogCache } from '../../../src/store/catalog-types';
import { chainWithTruncatedSigner, dimensionBombPng, makePng } from '../../helpers/platform-double/bad-data';
import { createTestPki, type TestPki } from '../../helpers/test-pki';

/**
 * Issue 15 "Platform catalogue data checked at sync": an entry that does not read is left out and
 * named (the sync result and the log), the others are served, and each certificate is read once.
 */
const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');
const NOW = new Date('2030-01-02T03:04:05.000Z');

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki({ algorithm: 'p256', intermediate: true, signerCn: 'Screened Signer' });
});
afterAll(() => rmSync(pki.dir, { recursive: true, force: true }));

const pades = (key: string, chain: string[]): CachedCredential => ({ credential_key: key, type: 'pades', name: `Signer ${key}`, engine: 'platform', default_design_key: null, certificate_chain: chain });
const evm: CachedCredential = { credential_key: 'wallet', type: 'evm', name: 'Wallet', engine: 'platform', default_design_key: null, address: `0x${'ab'.repeat(20)}` };
const design = (key: string, png?: Buffer): CachedDesign => ({
  design_key: key,
  name: `Design ${key}`,
  variables: [],
  stamp: { page: 'last', x: 10, y: 10, width: 100, height: 40, lines: [{ text: 'Signed', size: 9 }], ...(png ? { image_png_base64: png.toString('base64') } : {}) },
});

async function sync(fetched: FetchedCatalog, withWarn = true): Promise<{ cache: CatalogCache; written: CatalogCache[]; warnings: string[] }> {
  const warnings: string[] = [];
  const written: CatalogCache[] = [];
  const source: CatalogSource = { fetchCatalog: async () => fetched };
  const cache = await syncCatalog({ source, write: (c) => written.push(c), now: NOW, ...(withWarn ? { warn: (m: string) => warnings.push(m) } : {}) });
  return { cache, written, warnings };
}

describe('syncCatalog screens each entry', () => {
  it('leaves out a non-DER certificate and a PNG dimension bomb, names them, and keeps the rest', async () => {
    const good = pki.chain.map(b64);
    const { cache, written, warnings } = await sync({
      credentials: [pades('good', good), pades('bad', chainWithTruncatedSigner(good)), evm],
      designs: [design('plain'), design('logo', makePng({ width: 120, height: 40 })), design('bomb', dimensionBombPng())],
    });
    expect(written).toEqual([cache]);
    expect(cache.credentials.map((c) => c.credential_key)).toEqual(['good', 'wallet']);
    expect(cache.designs.map((d) => d.design_key)).toEqual(['plain', 'logo']);
    expect(cache.synced_at).toBe(NOW.toISOString());
    expect(cache.skipped).toEqual([
      { credential_key: 'bad', name: 'Signer bad', reason: expect.stringMatching(/^certificate_chain\[0\] is not a DER X\.509 certificate \(.+\)$/) },
      { design_key: 'bomb', name: 'Design bomb', reason: 'stamp.image_png_base64 is 20000 × 20000 pixels; at most 2000 × 2000 are allowed' },
    ]);
    expect(warnings).toEqual([
      `sync: credential bad (Signer bad) left out: ${(cache.skipped![0] as { reason: string }).reason}`,
      'sync: design bomb (Design bomb) left out: stamp.image_png_base64 is 20000 × 20000 pixels; at most 2000 × 2000 are allowed',
    ]);
  });

  it('reads the signer certificate once, at sync: its description is in the cache', async () => {
    const { cache } = await sync({ credentials: [pades('good', pki.chain.map(b64)), evm], designs: [] });
    const described = describeCertificate(pki.chain[0]!);
    expect(described.subject).toContain('CN=Screened Signer');
    expect(cache.credentials[0]!.certificate).toEqual(described);
    expect(cache.credentials[1]!.certificate).toBeUndefined();
    // A clean sync carries no `skipped` at all (the sync answer integrators already read).
    expect(cache).not.toHaveProperty('skipped');
  });

  it('checks every certificate of the chain, naming the one that does not read', async () => {
    const chain = pki.chain.map(b64);
    chain[1] = Buffer.from('not a certificate').toString('base64');
    const { cache } = await sync({ credentials: [pades('mid', chain)], designs: [] });
    expect(cache.credentials).toEqual([]);
    expect(cache.skipped).toEqual([{ credential_key: 'mid', name: 'Signer mid', reason: expect.stringMatching(/^certificate_chain\[1\] is not a DER X\.509 certificate/) }]);
  });

  it('keeps what the source itself left out ahead of its own, logs each, and needs no log to work', async () => {
    const fromSource = { credential_key: 'elsewhere', name: 'Elsewhere', reason: 'the chip holds no key with id ffee' };
    const { cache, warnings } = await sync({ credentials: [], designs: [design('bomb', dimensionBombPng())], skipped: [fromSource] });
    expect(cache.skipped!.map((s) => s.name)).toEqual(['Elsewhere', 'Design bomb']);
    expect(warnings).toEqual(['sync: credential elsewhere (Elsewhere) left out: the chip holds no key with id ffee', expect.stringMatching(/^sync: design bomb \(Design bomb\) left out: /)]);
    const quiet = await sync({ credentials: [], designs: [design('bomb', dimensionBombPng())] }, false);
    expect(quiet.cache.skipped).toHaveLength(1);
  });

  it('a failing source writes nothing (the old cache stays)', async () => {
    const written: CatalogCache[] = [];
    const source: CatalogSource = { fetchCatalog: () => Promise.reject(new PlatformError('the platform answered HTTP 502')) };
    await expect(syncCatalog({ source, write: (c) => written.push(c), now: NOW })).rejects.toThrow('HTTP 502');
    expect(written).toEqual([]);
  });
});

describe('designs: the same caps for an operator, reserved variable names for everyone', () => {
  it('design:add refuses a logo over the caps, naming the field', () => {
    const raw = { ...design('x', dimensionBombPng()), variables: [] };
    expect(() => parseOperatorDesign(raw, 'bomb.json')).toThrow('bomb.json: stamp.image_png_base64 is 20000 × 20000 pixels; at most 2000 × 2000 are allowed');
    expect(parseOperatorDesign({ ...design('y', makePng({ width: 64, height: 64 })) }, 'ok.json').design_key).toBe('y');
  });

  it('refuses __proto__, constructor and prototype as variable names', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const d = JSON.parse(JSON.stringify({ ...design('v'), variables: [{ name, required: true, description: '' }] })) as unknown;
      expect(checkDesign(d)).toBe(`variables[0].name "${name}" is reserved (__proto__, constructor and prototype name no variable)`);
    }
    expect(checkDesign({ ...design('v'), variables: [{ name: 'proto', required: true, description: '' }] })).toBeNull();
  });
});
