import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../../../src/domain/errors';
import { checkDesign } from '../../../../src/platform/design-check';
import { backoffDelay, checkPlatformUrl } from '../../../../src/platform/remote/client';
import { parseCredentials as parseWith, parseDesigns, parsePairAnswer, parseResult } from '../../../../src/platform/remote/wire';
import { BUILT_IN_ENGINES } from '../../../../src/signing/engines';
import { BUILT_IN_KINDS, KindTable } from '../../../../src/signing/kinds';

/** The catalogue as the service reads it: the built-in kinds' credential types and the built-in engines. */
const parseCredentials = (body: unknown) => parseWith(body, new KindTable(BUILT_IN_KINDS).catalogueRules(BUILT_IN_ENGINES));

const design = () => ({
  design_key: 'd1',
  name: 'Stamp',
  variables: [{ name: 'ref', required: true, description: 'a reference' }],
  stamp: { page: 'last', x: 36, y: 36, width: 200, height: 50, lines: [{ text: 'Ref {{ref}}', size: 9 }] },
});

describe('checkPlatformUrl (https, or http on loopback only)', () => {
  it('accepts https anywhere and http on loopback, without a trailing slash', () => {
    expect(checkPlatformUrl('https://platform.example.com/')).toBe('https://platform.example.com');
    expect(checkPlatformUrl('https://platform.example.com/tenant/7/')).toBe('https://platform.example.com/tenant/7');
    expect(checkPlatformUrl('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000');
    expect(checkPlatformUrl('http://localhost:9000')).toBe('http://localhost:9000');
    expect(checkPlatformUrl('http://[::1]:9000')).toBe('http://[::1]:9000');
  });
  it('refuses plain http off loopback, other schemes, credentials and garbage, naming the flag', () => {
    expect(() => checkPlatformUrl('http://platform.example.com')).toThrow('--platform must be an https:// URL (plain http only on a loopback address), got http://platform.example.com');
    expect(() => checkPlatformUrl('http://127.0.0.1.example.com')).toThrow('--platform must be an https:// URL');
    expect(() => checkPlatformUrl('ftp://127.0.0.1')).toThrow('--platform must be an https:// URL');
    expect(() => checkPlatformUrl('https://user:pw@platform.example.com')).toThrow('--platform must not carry a user name or password');
    expect(() => checkPlatformUrl('platform.example.com')).toThrow('--platform must be a URL such as https://platform.example.com');
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt up to the cap, with jitter between half and the full delay', () => {
    expect(backoffDelay(0, { baseMs: 500, capMs: 30_000, random: () => 1 })).toBe(500);
    expect(backoffDelay(3, { baseMs: 500, capMs: 30_000, random: () => 1 })).toBe(4_000);
    expect(backoffDelay(3, { baseMs: 500, capMs: 30_000, random: () => 0 })).toBe(2_000);
    expect(backoffDelay(20, { baseMs: 500, capMs: 30_000, random: () => 1 })).toBe(30_000);
  });
});

describe('platform wire data is checked field by field', () => {
  it('a pairing answer', () => {
    expect(parsePairAnswer({ tenant_id: 7, agent_id: 'a1', agent_secret: 's' })).toEqual({ tenant_id: 7, agent_id: 'a1', agent_secret: 's' });
    expect(() => parsePairAnswer({ tenant_id: '7', agent_id: 'a1', agent_secret: 's' })).toThrow('malformed tenant_id');
    expect(() => parsePairAnswer({ tenant_id: 7, agent_id: 'a1' })).toThrow('missing or malformed agent_secret');
  });

  it('credentials of both types and engines', () => {
    const creds = parseCredentials({
      credentials: [
        { credential_key: 'c1', type: 'pades', name: 'RSA', engine: 'platform', default_design_key: 'd1', certificate_chain: ['AAEC', 'AwQ='] },
        { credential_key: 'c2', type: 'evm', name: 'Wallet', engine: 'chip', default_design_key: 'ignored', address: '0x' + 'aB'.repeat(20), chip_key_id: 'A1' },
      ],
    });
    expect(creds).toEqual([
      { credential_key: 'c1', type: 'pades', name: 'RSA', engine: 'platform', default_design_key: 'd1', certificate_chain: ['AAEC', 'AwQ='] },
      { credential_key: 'c2', type: 'evm', name: 'Wallet', engine: 'chip', default_design_key: null, address: '0x' + 'aB'.repeat(20), chip_key_id: 'a1' },
    ]);
  });

  it('refuses a malformed credential with a PlatformError naming it', () => {
    const bad = (c: object) => () => parseCredentials({ credentials: [c] });
    expect(bad({ credential_key: 'c', type: 'x509', engine: 'platform' })).toThrow('the platform sent credential #1 of an unknown type (expected pades or evm)');
    expect(bad({ credential_key: 'c', type: 'pades', engine: 'platform', certificate_chain: [] })).toThrow('malformed certificate_chain');
    expect(bad({ credential_key: 'c', type: 'evm', engine: 'platform', address: '0x12' })).toThrow('malformed address');
    expect(bad({ credential_key: 'c', type: 'evm', engine: 'chip', address: '0x' + '1'.repeat(40) })).toThrow('malformed chip_key_id');
    expect(() => parseCredentials({})).toThrow(PlatformError);
  });

  it('designs go through the design check', () => {
    expect(parseDesigns({ designs: [design()] })).toEqual([design()]);
    expect(() => parseDesigns({ designs: [{ ...design(), stamp: { ...design().stamp, page: 0 } }] })).toThrow('the platform sent design #1 that is not valid: stamp.page must be "first", "last" or a page number counted from 1');
  });

  it('results for both kinds, and their refusals', () => {
    expect(parseResult({ status: 'PENDING' }, 'signature')).toEqual({ status: 'PENDING' });
    expect(parseResult({ status: 'ERROR', error: 'declined on the phone' }, 'signature')).toEqual({ status: 'ERROR', error: 'declined on the phone' });
    expect(parseResult({ status: 'DONE', signature_base64: 'AQID' }, 'signature')).toEqual({ status: 'DONE', signature: Uint8Array.of(1, 2, 3) });
    const r = '0x' + 'a'.repeat(64);
    expect(parseResult({ status: 'DONE', r, s: r, recovery_id: 1 }, 'recoverable')).toEqual({ status: 'DONE', r, s: r, recoveryId: 1 });
    expect(() => parseResult({ status: 'DONE', r, s: r, recovery_id: 2 }, 'recoverable')).toThrow('recovery_id other than 0 or 1');
    expect(() => parseResult({ status: 'DONE', r: '0xAB', s: r, recovery_id: 0 }, 'recoverable')).toThrow('malformed r');
    expect(() => parseResult({ status: 'DONE' }, 'signature')).toThrow('malformed signature_base64');
    expect(() => parseResult({ status: 'WAITING' }, 'signature')).toThrow('unknown status');
  });
});

describe('checkDesign', () => {
  it('accepts a drawable design and names the first problem otherwise', () => {
    expect(checkDesign(design())).toBeNull();
    expect(checkDesign({ ...design(), stamp: { ...design().stamp, page: 3 } })).toBeNull();
    expect(checkDesign({ ...design(), stamp: { ...design().stamp, width: 0 } })).toBe('stamp.width must be a number of points above 0 and at most 14400');
    expect(checkDesign({ ...design(), stamp: { ...design().stamp, lines: [{ text: 'x', size: 'big' }] } })).toBe('stamp.lines[0].size must be a font size from 1 to 144 points');
    expect(checkDesign({ ...design(), variables: [{ name: 'a b', required: true }] })).toBe('variables[0].name must be 1 to 64 letters, digits, "_", "." or "-"');
    expect(checkDesign({ ...design(), variables: [{ name: 'a', required: true }, { name: 'a', required: false }] })).toBe('variables[1].name "a" appears twice');
    expect(checkDesign({ ...design(), stamp: { ...design().stamp, image_png_base64: 'not base64!' } })).toBe('stamp.image_png_base64 must be standard base64');
    expect(checkDesign([])).toBe('a design must be a JSON object');
  });

  it('accepts stamp.on_conflict and stamp.background (CONTRACT) and names a bad value', () => {
    const stamp = (extra: Record<string, unknown>) => ({ ...design(), stamp: { ...design().stamp, ...extra } });
    for (const on_conflict of ['overlap', 'new_page', 'refuse']) expect(checkDesign(stamp({ on_conflict }))).toBeNull();
    for (const background of ['none', '#ffffff', '#FFEecc']) expect(checkDesign(stamp({ background }))).toBeNull();
    for (const on_conflict of ['move', '', null, 1]) expect(checkDesign(stamp({ on_conflict }))).toBe('stamp.on_conflict must be "overlap", "new_page" or "refuse"');
    for (const background of ['white', '#fff', '#gggggg', null, 0]) expect(checkDesign(stamp({ background }))).toBe('stamp.background must be a colour "#rrggbb" or "none"');
  });
});
