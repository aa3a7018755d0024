/**
 * The tenant's starting catalogue (PLATFORM.md "Catalogue"): two PAdES credentials (RSA, P-256)
 * and one EVM wallet, all `engine: "platform"`, keyed by fresh UUIDs as a real platform would; a
 * standard design and an approval design with a required variable and a PNG image.
 */
import { randomUUID } from 'node:crypto';
import type { DoublePki } from './pki';
import type { WireCredential, WireDesign } from './types';

/** A 1×1 RGBA PNG (a valid image the service's stamp code must decode). */
const TINY_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export interface Catalogue {
  credentials: WireCredential[];
  designs: WireDesign[];
  keys: { rsa: string; p256: string; wallet: string; standard: string; approval: string };
}

const b64 = (chain: Uint8Array[]): string[] => chain.map((c) => Buffer.from(c).toString('base64'));

export function defaultCatalogue(pki: DoublePki): Catalogue {
  const keys = { rsa: randomUUID(), p256: randomUUID(), wallet: randomUUID(), standard: randomUUID(), approval: randomUUID() };
  const credentials: WireCredential[] = [
    { credential_key: keys.rsa, type: 'pades', name: 'Platform signer (RSA)', engine: 'platform',
      default_design_key: keys.standard, certificate_chain: b64(pki.rsa.chain) },
    { credential_key: keys.p256, type: 'pades', name: 'Platform signer (P-256)', engine: 'platform',
      default_design_key: keys.approval, certificate_chain: b64(pki.p256.chain) },
    { credential_key: keys.wallet, type: 'evm', name: 'Platform wallet', engine: 'platform',
      default_design_key: null, address: pki.wallet.address },
  ];
  const designs: WireDesign[] = [
    {
      design_key: keys.standard,
      name: 'Platform standard stamp',
      variables: [
        { name: 'signer_name', required: false, description: 'Name shown on the stamp' },
        { name: 'reference', required: false, description: 'A case reference' },
      ],
      stamp: { page: 'last', x: 36, y: 36, width: 260, height: 60,
        lines: [{ text: 'Signed on the platform by {{signer_name}}', size: 10 }, { text: 'Ref: {{reference}} · {{date}}', size: 8 }] },
    },
    {
      design_key: keys.approval,
      name: 'Platform approval stamp',
      variables: [{ name: 'approval_id', required: true, description: 'Identifier of the approval' }],
      stamp: { page: 1, x: 300, y: 700, width: 200, height: 50, image_png_base64: TINY_PNG_BASE64,
        lines: [{ text: 'Approved: {{approval_id}}', size: 11 }] },
    },
  ];
  return { credentials, designs, keys };
}
