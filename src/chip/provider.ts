import { readFileSync, statSync } from 'node:fs';
import { ChipError } from '../domain/errors';
import { isPinRejection, pinRejectedError, type PinRejection } from './pin-rejection';
import type { Pkcs11ChipOptions } from './pkcs11';
import { createSoftChip } from './soft-chip';
import type { Chip, SignOptions } from './types';
import type { ChipPinSource, ChipSettings, SoftSignTask, SoftSignTaskResult } from './types';
import { osErrorInWords } from '../domain/os-errors';

type Pkcs11Settings = Extract<ChipSettings, { kind: 'pkcs11' }>;

/** A chip the token refused the PIN for: the settings and operator mark it was tried with. */
interface Rejection {
  key: string;
  mark: string;
  settings: ChipSettings;
  cause: ChipError & PinRejection;
}

/**
 * Opens the configured chip once and hands the same instance to every job. The PKCS#11 bridge is
 * imported lazily, so `--help`, the soft chip and the tests never load native code.
 *
 * A chip that failed to open is opened again on the next request (a token plugged back in, a
 * module installed), except when the token refused the PIN: tokens lock the PIN after a few
 * wrong tries (smart cards 3, HSMs up to 10), so presenting it again on every request would lock
 * the operator's token. Then every `get()` fails at once with the same error and no login, until
 * the operator acts: an explicit sync in this process (`forgetPinRejection`), other chip settings
 * (`init`), a sync or init from another process (the cache's `synced_at` changes), a changed PIN
 * file, or a restart. Each such act costs at most one more C_Login.
 */
export class ChipProvider {
  private chip: Promise<Chip> | null = null;
  private settingsKey = '';
  private rejection: Rejection | null = null;

  constructor(
    private readonly deps: {
      softChipPath: string;
      /** The soft chip's work, on the signing threads. */
      runTask: (task: SoftSignTask, o?: { signal?: AbortSignal }) => Promise<SoftSignTaskResult>;
      readVar: (name: string) => string | undefined;
      /** When the catalogue was last synced (any process): a sync elsewhere retries a refused PIN. */
      syncedAt?: () => string | null;
      /** Tests count logins through this; the service uses the PKCS#11 bridge. */
      openPkcs11?: (options: Pkcs11ChipOptions) => Promise<Chip>;
    },
  ) {}

  get(settings: ChipSettings): Promise<Chip> {
    const key = JSON.stringify(settings);
    const rejected = this.rejection;
    if (rejected) {
      if (rejected.key === key && rejected.mark === this.operatorMark(settings)) return Promise.reject(pinRejectedError(rejected.cause, settings));
      this.rejection = null;
    }
    if (!this.chip || key !== this.settingsKey) {
      const previous = this.chip;
      this.settingsKey = key;
      const mark = this.operatorMark(settings);
      const opening: Promise<Chip> = this.open(settings).then(
        (chip) => {
          this.lastOpenFailedAbsent = false;
          const watched = this.watch(chip, { key, mark, settings }, () => this.chip === opening);
          if (this.chip === opening) this.opened = watched;
          return watched;
        },
        (error: unknown) => {
          // pkcs11/token-discovery.ts TokenNotPresentError, named rather than imported: the
          // bridge stays unloaded until a PKCS#11 chip is used.
          this.lastOpenFailedAbsent = error instanceof ChipError && error.name === 'TokenNotPresentError';
          throw this.refused(error, { key, mark, settings }, this.chip === opening);
        },
      );
      this.chip = opening;
      opening.catch(() => {
        if (this.chip === opening) this.chip = null; // open again on the next request
      });
      this.opened = null;
      void previous?.then((c) => c.close()).catch(() => undefined);
    }
    return this.chip;
  }

  /**
   * The chip as /health reports it: null before a PKCS#11 chip was opened (or for the software
   * chip), `pin_rejected` while a refused PIN is latched, `absent` while the token did not answer
   * its last call (pulled out: the next request reopens it once it is back), else `present`.
   */
  status(): 'present' | 'absent' | 'pin_rejected' | null {
    if (this.rejection) return 'pin_rejected';
    const chip = this.opened;
    if (!chip || chip.kind !== 'pkcs11') return this.lastOpenFailedAbsent ? 'absent' : null;
    return chip.present === false ? 'absent' : 'present';
  }

  /** The last open failed because the token was not there (a request during its absence). */
  private lastOpenFailedAbsent = false;
  /** The chip the current open gave, once it has (status() never waits for an open). */
  private opened: Chip | null = null;

  /** An explicit sync: a refused PIN is tried once more (the operator says it is fixed). */
  forgetPinRejection(): void {
    this.rejection = null;
  }

  private async open(settings: ChipSettings): Promise<Chip> {
    if (settings.kind === 'soft') return createSoftChip(this.deps.softChipPath, (task, o) => this.deps.runTask(task, o));
    const bridge = await import('./pkcs11');
    const openOne = (tokenLabel: string | null, source: ChipPinSource): Promise<Chip> => {
      const options: Pkcs11ChipOptions = {
        modulePath: settings.module,
        tokenLabel: tokenLabel ?? undefined,
        // A PIN pad or a PIN per request log in when a signature needs it; a stored PIN is read at each login.
        pin: source.pin_pad ? 'pad' : source.pin_per_request ? 'per-request' : () => readPin(source, this.deps.readVar),
      };
      return this.deps.openPkcs11 ? this.deps.openPkcs11(options) : bridge.createPkcs11Chip(options);
    };
    if (!settings.all_tokens && !settings.more_tokens?.length) return openOne(settings.token_label, settings);
    // Several tokens (issue 16): one chip each, its own session and PIN source.
    const tokens: { label: string; source: ChipPinSource }[] = settings.all_tokens
      ? (await bridge.presentTokenLabels(settings.module)).map((label) => ({ label, source: settings }))
      : [{ label: settings.token_label ?? '', source: settings }, ...(settings.more_tokens ?? []).map((t) => ({ label: t.token_label, source: t }))];
    if (tokens.length === 0) throw new ChipError(`no token present in ${settings.module}`);
    const opened: { label: string; chip: Chip }[] = [];
    try {
      for (const t of tokens) opened.push({ label: t.label, chip: await openOne(t.label, t.source) });
    } catch (error) {
      await Promise.all(opened.map((o) => o.chip.close().catch(() => undefined)));
      throw error;
    }
    return new bridge.MultiTokenChip(opened);
  }

  /**
   * The error to hand on for `error`; a refused PIN becomes the operator's message and, when
   * `current`, latches the provider.
   */
  private refused(error: unknown, attempt: Omit<Rejection, 'cause'>, current: boolean): unknown {
    if (!isPinRejection(error)) return error;
    if (current) this.rejection = { ...attempt, cause: error };
    return pinRejectedError(error, attempt.settings);
  }

  /**
   * The token may refuse the PIN after the chip opened (a reconnect after the session was lost,
   * with the PIN changed meanwhile): latch then too, and drop the chip.
   */
  private watch(chip: Chip, attempt: Omit<Rejection, 'cause'>, current: () => boolean): Chip {
    if (chip.kind === 'soft') return chip;
    let rejected: (ChipError & PinRejection) | null = null;
    const guard = <T>(call: () => Promise<T>): Promise<T> => {
      if (rejected) return Promise.reject(pinRejectedError(rejected, attempt.settings));
      return call().catch((error: unknown) => {
        if (!isPinRejection(error)) throw error;
        const first = rejected === null;
        rejected = error;
        const latch = first && current();
        if (latch) {
          this.chip = null;
          void chip.close().catch(() => undefined);
        }
        throw this.refused(error, { ...attempt, mark: this.operatorMark(attempt.settings) }, latch);
      });
    };
    const recoverable = chip.signRecoverable?.bind(chip);
    return {
      kind: chip.kind,
      get present() {
        return chip.present;
      },
      listKeys: () => guard(() => chip.listKeys()),
      signDigest: (keyId, digest, options) => guard(() => chip.signDigest(keyId, digest, options)),
      ...(recoverable ? { signRecoverable: (keyId: string, digest: Uint8Array, publicKey: Uint8Array, options?: Pick<SignOptions, 'signal'>) => guard(() => recoverable(keyId, digest, publicKey, options)) } : {}),
      close: () => chip.close(),
    };
  }

  /**
   * What changes when the operator acts outside this process: a sync or init elsewhere writes a
   * new `synced_at`; editing the PIN file changes its stat. Read at each open and, while a PIN is
   * refused, at each request.
   */
  private operatorMark(settings: ChipSettings): string {
    const synced = this.deps.syncedAt?.() ?? '';
    if (settings.kind !== 'pkcs11' || !settings.pin_file) return synced;
    try {
      const s = statSync(settings.pin_file, { throwIfNoEntry: false });
      return `${synced}|${s ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'missing'}`;
    } catch {
      return `${synced}|unreadable`;
    }
  }

  async close(): Promise<void> {
    const chip = this.chip;
    this.chip = null;
    this.opened = null;
    if (chip) await chip.then((c) => c.close()).catch(() => undefined);
  }
}

/** The PIN is read when needed from the place the operator chose, and never stored elsewhere. */
function readPin(settings: ChipPinSource, readVar: (name: string) => string | undefined): string {
  if (settings.pin_env) {
    const pin = readVar(settings.pin_env);
    if (pin === undefined || pin === '') throw new ChipError(`the chip PIN variable ${settings.pin_env} is not set in the service's environment`);
    return pin;
  }
  if (settings.pin_file) {
    try {
      return readFileSync(settings.pin_file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new ChipError(`cannot read the chip PIN file ${settings.pin_file}: ${osErrorInWords(error)}`);
    }
  }
  throw new ChipError('no chip PIN source configured; run init with --chip-pin-env or --chip-pin-file');
}
