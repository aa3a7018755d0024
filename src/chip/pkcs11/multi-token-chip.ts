/**
 * Several tokens on one module as one chip (`--chip-token` given more than once, or
 * `--chip-all-tokens`): a person's eID card beside a company card, or two cards in two readers.
 * Each token keeps its own Pkcs11Chip: its own session, queue, PIN source and refusals. A key id
 * carries its token's label (`label/01`), so a credential names the card its key is on.
 */
import { ChipError } from '../../domain/errors';
import type { Chip, ChipKey, SignOptions } from '../types';

export interface TokenChip {
  label: string;
  chip: Chip;
}

/** `label/id`: the token label first (labels may hold a `/`, CKA_IDs in hex never do). */
export function tokenKeyId(label: string, id: string): string {
  return `${label}/${id}`;
}

export class MultiTokenChip implements Chip {
  readonly kind = 'pkcs11' as const;

  constructor(private readonly tokens: TokenChip[]) {}

  /** Present while every token answered its last call. */
  get present(): boolean {
    return this.tokens.every((t) => t.chip.present !== false);
  }

  /** Every token's keys; a token that does not answer fails the listing, naming it (a sync keeps the old cache). */
  async listKeys(): Promise<ChipKey[]> {
    const lists = await Promise.all(this.tokens.map(async (t) => ({ t, keys: await t.chip.listKeys() })));
    return lists.flatMap(({ t, keys }) => keys.map((k) => ({ ...k, id: tokenKeyId(t.label, k.id), label: `${t.label}: ${k.label || `key ${k.id}`}` })));
  }

  signDigest(keyId: string, digest: Uint8Array, options?: SignOptions): Promise<Uint8Array> {
    const slash = keyId.lastIndexOf('/');
    const token = slash < 0 ? undefined : this.tokens.find((t) => t.label === keyId.slice(0, slash));
    if (!token) return Promise.reject(new ChipError(`key ${keyId} names no configured token (${this.tokens.map((t) => `'${t.label}'`).join(', ')})`));
    return token.chip.signDigest(keyId.slice(slash + 1), digest, options);
  }

  async close(): Promise<void> {
    await Promise.all(this.tokens.map((t) => t.chip.close()));
  }
}
