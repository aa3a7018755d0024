/**
 * The refused-PIN latch, kept in the config dir so that every process obeys it: the running
 * service, a restarted one (a reboot, an upgrade, systemd restarting it), `localsign sync` and
 * `init` run by hand. A token counts wrong tries and locks the PIN after a few (smart cards 3,
 * HSMs up to 10), so the PIN it refused is not presented again by anyone until the operator acts:
 * - `localsign chip:retry-pin` (the record removed: one more try);
 * - `localsign init` with chip settings (a new record-free configuration);
 * - other chip settings (module, token, PIN variable or file: the record names the old ones);
 * - a PIN file written (the record holds the file's identity as it was).
 * An application's call (`POST /v1/sync`, a sign request) is none of these: it finds the chip
 * shut, at once and with no login. Pure apart from `stat`: no PIN, nor anything derived from one,
 * is kept (a hash of a 6-digit PIN is found by trying them all).
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { ChipError } from '../domain/errors';
import type { PinRejection } from './pin-rejection';
import type { ChipSettings } from './types';

/** What embedded.json holds while the latch is on (`chip_pin_refused`). */
export interface PinLatchRecord {
  /** sha256 of the chip settings the PIN was refused for (their JSON). */
  settings: string;
  /** The PIN files of those settings as they were then (inode, size, mtime), or "" for none. */
  pin_files: string;
  /** The token's answer, e.g. `PIN incorrect on token 'T' (C_Login: CKR_PIN_INCORRECT)`; never the PIN. */
  reason: string;
  /** The token's code, e.g. `CKR_PIN_INCORRECT`. */
  code: string;
  /** When it was refused (ISO 8601). */
  at: string;
}

/** Where the record lives (the context gives embedded.json, re-read when another process writes it). */
export interface PinLatchStore {
  read(): PinLatchRecord | null;
  write(record: PinLatchRecord | null): void;
}

export function settingsDigest(settings: ChipSettings): string {
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex');
}

/**
 * The PIN files of `settings` as they are now: writing one is the operator's act (only someone who
 * can write it can change the PIN there). Stat, not content, so no PIN is read for it.
 */
export function pinFilesMark(settings: ChipSettings): string {
  if (settings.kind !== 'pkcs11') return '';
  const files = [settings.pin_file, ...(settings.more_tokens ?? []).map((t) => t.pin_file)].filter((f): f is string => Boolean(f));
  return files
    .map((file) => {
      try {
        const s = statSync(file, { throwIfNoEntry: false });
        return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'missing';
      } catch {
        return 'unreadable';
      }
    })
    .join('|');
}

/** Whether `record` shuts the chip of `settings` now (same settings, PIN files untouched since). */
export function latchApplies(record: PinLatchRecord, settings: ChipSettings): boolean {
  return record.settings === settingsDigest(settings) && record.pin_files === pinFilesMark(settings);
}

/** The token's refusal as it was recorded, for the message every later attempt gets. */
export function recordedRefusal(record: PinLatchRecord): ChipError & PinRejection {
  return Object.assign(new ChipError(record.reason), { pinRejected: true as const, code: record.code });
}
