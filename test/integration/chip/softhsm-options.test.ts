/**
 * The card shapes test/helpers/softhsm.ts makes (issue 16), read back with pkcs11-tool: what each
 * object's CKA_ID is, which private keys want a PIN per signature or show without a login, which
 * public keys are gone, and several tokens in one configuration.
 */
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSoftHsmToken, createSoftHsmTokens, type SoftHsmToken, type SoftHsmTokenSet } from '../../helpers/softhsm';

interface ListedObject {
  kind: 'privkey' | 'pubkey' | 'cert' | 'other';
  label: string | null;
  id: string | null;
  access: string;
  usage: string;
}

/** pkcs11-tool --list-objects, one entry per object (it prints no `ID:` line for an empty CKA_ID). */
async function listObjects(token: SoftHsmToken, login: boolean): Promise<ListedObject[]> {
  const { stdout } = await token.pkcs11Tool(['--list-objects'], login ? { pin: token.pin } : undefined);
  return stdout
    .split(/^(?=\S[^\n]* Object)/mu)
    .filter((block) => / Object/u.test(block.split('\n')[0] ?? ''))
    .map((block) => {
      const head = block.split('\n')[0] ?? '';
      const field = (name: string) => new RegExp(`^\\s+${name}:\\s*(.*)$`, 'mu').exec(block)?.[1]?.trim() ?? null;
      return {
        kind: head.startsWith('Private Key') ? 'privkey' : head.startsWith('Public Key') ? 'pubkey' : head.startsWith('Certificate') ? 'cert' : 'other',
        label: field('label'),
        id: field('ID'),
        access: field('Access') ?? '',
        usage: field('Usage') ?? '',
      };
    });
}

const ids = (objects: ListedObject[], kind: ListedObject['kind']) => objects.filter((o) => o.kind === kind).map((o) => o.id).sort();

describe('default token', () => {
  let token: SoftHsmToken;
  beforeAll(async () => {
    token = await createSoftHsmToken({ label: 'options-default', keys: ['p256', 'secp256k1'] });
  });
  afterAll(() => token?.cleanup());

  it("keeps today's layout: key, public key and certificate share CKA_ID; no always-authenticate", async () => {
    const objects = await listObjects(token, true);
    expect(ids(objects, 'privkey')).toEqual(['02', '03']);
    expect(ids(objects, 'pubkey')).toEqual(['02', '03']);
    expect(ids(objects, 'cert')).toEqual(['02', 'c0', 'c1']);
    expect(objects.filter((o) => o.kind === 'privkey').every((o) => !o.access.includes('always authenticate'))).toBe(true);
    expect(token.keys.map((k) => [k.id, k.certificateId, k.publicKeyId, k.alwaysAuthenticate, k.privateKeyPrivate])).toEqual([
      ['02', '02', '02', false, true],
      ['03', null, '03', false, true],
    ]);
    // Private keys are CKA_PRIVATE: not listed without a login.
    expect(ids(await listObjects(token, false), 'privkey')).toEqual([]);
  });

  it('publicKeyInfo is the SubjectPublicKeyInfo the certificate carries', () => {
    const key = token.keys[0];
    const spki = new X509Certificate(key?.certificate ?? new Uint8Array()).publicKey.export({ type: 'spki', format: 'der' });
    expect(Buffer.from(key?.publicKeyInfo ?? []).equals(spki)).toBe(true);
  });

  it('unplug() and plug() still take the token away and back', async () => {
    await token.unplug();
    const { stdout } = await token.pkcs11Tool(['--list-slots']).catch(() => ({ stdout: '' }));
    expect(stdout).not.toContain('options-default');
    await token.plug();
    expect((await token.pkcs11Tool(['--list-slots'])).stdout).toContain('options-default');
  });
});

describe('createSoftHsmTokens: two cards of different shapes in one configuration', () => {
  let set: SoftHsmTokenSet;
  beforeAll(async () => {
    set = await createSoftHsmTokens([
      { label: 'card-a', alwaysAuth: true, idLayout: 'certificate-differs', withoutPublicKeys: true },
      { label: 'card-b', keysVisibleWithoutLogin: true, idLayout: 'no-ids', withoutPublicKeys: ['rsa', 'p256', 'secp256k1'] },
    ]);
  });
  afterAll(() => set?.cleanup());

  it('lists both tokens under one softhsm2.conf, each with its own PIN and keys 01, 02, 03', async () => {
    const [a, b] = set.tokens;
    expect(a?.conf).toBe(set.conf);
    expect(b?.conf).toBe(set.conf);
    expect(a?.pin).not.toBe(b?.pin);
    const { stdout } = await set.token('card-a').pkcs11Tool(['--list-slots']);
    expect(stdout).toMatch(/token label\s*:\s*card-a/u);
    expect(stdout).toMatch(/token label\s*:\s*card-b/u);
    for (const token of set.tokens) {
      expect(token.keys.map((k) => k.id)).toEqual(['01', '02', '03']);
      expect(ids(await listObjects(token, true), 'privkey')).toEqual(['01', '02', '03']);
    }
    // Each token's PIN is its own: card-b's PIN does not open card-a.
    await expect(set.token('card-a').pkcs11Tool(['--list-objects'], { pin: set.token('card-b').pin })).rejects.toThrow(/CKR_PIN_INCORRECT/u);
  });

  it('alwaysAuth: every private key is CKA_ALWAYS_AUTHENTICATE', async () => {
    const privateKeys = (await listObjects(set.token('card-a'), true)).filter((o) => o.kind === 'privkey');
    expect(privateKeys).toHaveLength(3);
    for (const key of privateKeys) expect(key.access).toContain('always authenticate');
    expect(set.token('card-a').keys.every((k) => k.alwaysAuthenticate)).toBe(true);
  });

  it("certificate-differs: certificates a1, a2 for keys 01, 02; withoutPublicKeys: true keeps only the certificate-less key's public key", async () => {
    const objects = await listObjects(set.token('card-a'), true);
    expect(ids(objects, 'cert')).toEqual(['a1', 'a2', 'c0', 'c1']);
    expect(ids(objects, 'pubkey')).toEqual(['03']);
    expect(set.token('card-a').keys.map((k) => [k.id, k.certificateId, k.publicKeyId])).toEqual([
      ['01', 'a1', null],
      ['02', 'a2', null],
      ['03', null, '03'],
    ]);
  });

  it('keysVisibleWithoutLogin: private keys (CKA_PRIVATE false) are listed without a login, and sign after one', async () => {
    const token = set.token('card-b');
    const listed = (await listObjects(token, false)).filter((o) => o.kind === 'privkey');
    expect(listed.map((o) => [o.id, o.label]).sort()).toEqual([
      ['01', 'rsa-signer'],
      ['02', 'p256-signer'],
      ['03', 'secp256k1-wallet'],
    ]);
    for (const key of listed) {
      expect(key.usage).toContain('sign');
      expect(key.access).toContain('sensitive');
      expect(key.access).not.toContain('always authenticate');
    }
    expect(token.keys.every((k) => !k.privateKeyPrivate && !k.alwaysAuthenticate)).toBe(true);
    const { stdout } = await token.pkcs11Tool(['--test'], { pin: token.pin });
    expect(stdout).toMatch(/No errors/u);
  });

  it('no-ids: certificates without CKA_ID (empty); withoutPublicKeys: [all] leaves no public key', async () => {
    const token = set.token('card-b');
    const objects = await listObjects(token, true);
    const certificates = objects.filter((o) => o.kind === 'cert');
    expect(certificates.map((o) => [o.label, o.id]).sort()).toEqual([
      ['int CA', 'c1'],
      ['p256-signer', null],
      ['root CA', 'c0'],
      ['rsa-signer', null],
    ]);
    expect(ids(objects, 'pubkey')).toEqual([]);
    expect(token.keys.map((k) => [k.certificateId, k.publicKeyId])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  it('unplugToken takes one card away and plugToken puts it back', async () => {
    await set.unplugToken('card-a');
    let { stdout } = await set.token('card-b').pkcs11Tool(['--list-slots']);
    expect(stdout).not.toContain('card-a');
    expect(stdout).toContain('card-b');
    await set.plugToken('card-a');
    ({ stdout } = await set.token('card-b').pkcs11Tool(['--list-slots']));
    expect(stdout).toContain('card-a');
    expect(ids(await listObjects(set.token('card-a'), true), 'privkey')).toEqual(['01', '02', '03']);
  });
});

it('refuses alwaysAuth with keysVisibleWithoutLogin (SoftHSM2: CKR_TEMPLATE_INCONSISTENT)', async () => {
  await expect(createSoftHsmToken({ alwaysAuth: true, keysVisibleWithoutLogin: true })).rejects.toThrow(/alwaysAuth and keysVisibleWithoutLogin/u);
});
