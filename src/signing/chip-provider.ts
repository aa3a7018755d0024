import { readFileSync, statSync } from 'node:fs';
import { ChipError } from '../errors/errors';
import { isPinRejection, pinRejectedError, type PinRejection } from '../chip/pin-rejection';
import type { Pkcs11ChipOptions } from '../chip/pkcs11';
import { createSoftChip } from '../chip/soft-chip';
import type { Chip } from '../chip/types';
import type { ChipSettings, SoftSignTaskResult } from '../chip/types';
import type { SignTask, SignTaskResult } from './sign-tasks';

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
      runTask: (task: SignTask) => Promise<SignTaskResult>;
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
        (chip) => this.watch(chip, { key, mark, settings }, () => this.chip === opening),
        (error: unknown) => {
          throw this.refused(error, { key, mark, settings }, this.chip === opening);
        },
      );
      this.chip = opening;
      opening.catch(() => {
        if (this.chip === opening) this.chip = null; // open again on the next request
      });
      void previous?.then((c) => c.close()).catch(() => undefined);
    }
    return this.chip;
  }

  /** An explicit sync: a refused PIN is tried once more (the operator says it is fixed). */
  forgetPinRejection(): void {
    this.rejection = null;
  }

  private async open(settings: ChipSettings): Promise<Chip> {
    if (settings.kind === 'soft') return createSoftChip(this.deps.softChipPath, (task) => this.deps.runTask(task) as Promise<SoftSignTaskResult>);
    const options: Pkcs11ChipOptions = {
      modulePath: settings.module,
      tokenLabel: settings.token_label ?? undefined,
      pin: () => readPin(settings, this.deps.readVar),
    };
    if (this.deps.openPkcs11) return this.deps.openPkcs11(options);
    const { createPkcs11Chip } = await import('../chip/pkcs11');
    return createPkcs11Chip(options);
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
      listKeys: () => guard(() => chip.listKeys()),
      signDigest: (keyId, digest) => guard(() => chip.signDigest(keyId, digest)),
      ...(recoverable ? { signRecoverable: (keyId: string, digest: Uint8Array, publicKey: Uint8Array) => guard(() => recoverable(keyId, digest, publicKey)) } : {}),
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
    if (chip) await chip.then((c) => c.close()).catch(() => undefined);
  }
}

/** The PIN is read when needed from the place the operator chose, and never stored elsewhere. */
function readPin(settings: Pkcs11Settings, readVar: (name: string) => string | undefined): string {
  if (settings.pin_env) {
    const pin = readVar(settings.pin_env);
    if (pin === undefined || pin === '') throw new ChipError(`the chip PIN variable ${settings.pin_env} is not set in the service's environment`);
    return pin;
  }
  if (settings.pin_file) {
    try {
      return readFileSync(settings.pin_file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new ChipError(`cannot read the chip PIN file ${settings.pin_file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  throw new ChipError('no chip PIN source configured; run init with --chip-pin-env or --chip-pin-file');
}
