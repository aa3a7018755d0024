import { readFileSync } from 'node:fs';
import { ChipError } from '../domain/errors';
import { latchApplies, pinFilesMark, recordedRefusal, settingsDigest, type PinLatchRecord, type PinLatchStore } from './pin-latch';
import { isPinRejection, pinRejectedError, type PinRejection } from './pin-rejection';
import { PinTries } from './pin-tries';
import type { Pkcs11ChipOptions } from './pkcs11';
import { createSoftChip } from './soft-chip';
import type { Chip, SignOptions } from './types';
import type { ChipPinSource, ChipSettings, SoftSignTask, SoftSignTaskResult } from './types';
import { osErrorInWords } from '../domain/os-errors';

type Pkcs11Settings = Extract<ChipSettings, { kind: 'pkcs11' }>;

/** An attempt to open a chip: its settings and the state of their PIN files when it began. */
interface Attempt {
  pinFiles: string;
  settings: ChipSettings;
}

/**
 * Opens the configured chip once and hands the same instance to every job. The PKCS#11 bridge is
 * imported lazily, so `--help`, the soft chip and the tests never load native code.
 *
 * A chip that failed to open is opened again on the next request (a token plugged back in, a
 * module installed), except when the token refused the PIN: tokens lock the PIN after a few
 * wrong tries (smart cards 3, HSMs up to 10), so presenting it again on every request would lock
 * the operator's token. The refusal is recorded in the config dir (pin-latch.ts); while the
 * record applies, every `get()` in every process fails at once with the same error and no login,
 * until the operator acts (`localsign chip:retry-pin`, `init`, other settings, a PIN file
 * written). Each such act costs at most one more C_Login. A sync, from an application or from
 * the command line, is not such an act: it finds the chip shut like a sign request does.
 */
export class ChipProvider {
  private chip: Promise<Chip> | null = null;
  private settingsKey = '';
  /** The settings of the last `get()`, for /health. */
  private lastSettings: ChipSettings | null = null;
  /** A refusal the config dir could not record (disk full): it holds for this process. */
  private unsaved: PinLatchRecord | null = null;
  /** Wrong `chip_pin` values per token and application, kept while chips are opened again. */
  private readonly pinTries = new PinTries();

  constructor(
    private readonly deps: {
      softChipPath: string;
      /** The soft chip's work, on the signing threads. */
      runTask: (task: SoftSignTask, o?: { signal?: AbortSignal }) => Promise<SoftSignTaskResult>;
      readVar: (name: string) => string | undefined;
      /** The refused-PIN latch in the config dir, shared with every other process. */
      latch: PinLatchStore;
      now?: () => Date;
      /** Tests count logins through this; the service uses the PKCS#11 bridge. */
      openPkcs11?: (options: Pkcs11ChipOptions) => Promise<Chip>;
    },
  ) {}

  get(settings: ChipSettings): Promise<Chip> {
    this.lastSettings = settings;
    const refused = this.latched(settings);
    // Also when a chip is open here and the refusal was recorded by another process: the chip is
    // not used until the operator acts (its logins are refused too: storedPin).
    if (refused) return Promise.reject(pinRejectedError(refused, settings));
    const key = JSON.stringify(settings);
    if (!this.chip || key !== this.settingsKey) {
      const previous = this.chip;
      this.settingsKey = key;
      const attempt: Attempt = { pinFiles: pinFilesMark(settings), settings };
      const opening: Promise<Chip> = this.open(settings, attempt).then(
        (chip) => {
          this.lastOpenFailedAbsent = false;
          this.forgetStale(settings);
          const watched = this.watch(chip, attempt, () => this.chip === opening);
          if (this.chip === opening) this.opened = watched;
          return watched;
        },
        (error: unknown) => {
          // pkcs11/token-discovery.ts TokenNotPresentError, named rather than imported: the
          // bridge stays unloaded until a PKCS#11 chip is used.
          this.lastOpenFailedAbsent = error instanceof ChipError && error.name === 'TokenNotPresentError';
          throw this.refused(error, attempt, this.chip === opening);
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
    if (this.lastSettings && this.latched(this.lastSettings)) return 'pin_rejected';
    const chip = this.opened;
    if (!chip || chip.kind !== 'pkcs11') return this.lastOpenFailedAbsent ? 'absent' : null;
    return chip.present === false ? 'absent' : 'present';
  }

  /**
   * Before the 202 of a request bringing a `chip_pin` for the key `keyId`: throws the 429 while its
   * application, or anyone, must still wait after wrong ones on that key's token (pin-tries.ts).
   * The chip checks again right before its login, for requests accepted before a refusal.
   */
  assertChipPinMayTry(settings: ChipSettings, keyId: string, caller: string): void {
    if (settings.kind !== 'pkcs11') return;
    // multi-token-chip.ts: with several tokens a key id is `label/id`.
    const several = settings.all_tokens || (settings.more_tokens?.length ?? 0) > 0;
    const slash = keyId.lastIndexOf('/');
    const label = several ? (slash < 0 ? null : keyId.slice(0, slash)) : settings.token_label;
    this.pinTries.check(tokenKey(settings.module, label), caller);
  }

  /** The last open failed because the token was not there (a request during its absence). */
  private lastOpenFailedAbsent = false;
  /** The chip the current open gave, once it has (status() never waits for an open). */
  private opened: Chip | null = null;

  /** The refusal that shuts the chip of `settings` now, from the config dir or this process, or null. */
  private latched(settings: ChipSettings): (ChipError & PinRejection) | null {
    if (settings.kind !== 'pkcs11') return null;
    const record = this.deps.latch.read();
    if (record && latchApplies(record, settings)) return recordedRefusal(record);
    if (this.unsaved && latchApplies(this.unsaved, settings)) return recordedRefusal(this.unsaved);
    return null;
  }

  /**
   * `localsign chip:retry-pin`: the operator says the PIN is fixed. Removes the recorded refusal
   * (every process, the running service included, tries the PIN once at its next use of the chip)
   * and returns it, or null when none was recorded.
   */
  liftRefusal(): PinLatchRecord | null {
    const record = this.deps.latch.read();
    if (record) this.deps.latch.write(null);
    this.unsaved = null;
    return record;
  }

  /** An open succeeded: a record that no longer applies (the operator acted) is removed. */
  private forgetStale(settings: ChipSettings): void {
    this.unsaved = null;
    const record = this.deps.latch.read();
    if (record && !latchApplies(record, settings)) {
      try {
        this.deps.latch.write(null);
      } catch {
        // A stale record shuts nothing; it goes with the next write that succeeds.
      }
    }
  }

  private async open(settings: ChipSettings, attempt: Attempt): Promise<Chip> {
    if (settings.kind === 'soft') return createSoftChip(this.deps.softChipPath, (task, o) => this.deps.runTask(task, o));
    const bridge = await import('./pkcs11');
    const openOne = (tokenLabel: string | null, source: ChipPinSource): Promise<Chip> => {
      const options: Pkcs11ChipOptions = {
        modulePath: settings.module,
        tokenLabel: tokenLabel ?? undefined,
        // A PIN pad or a PIN per request log in when a signature needs it; a stored PIN is read at
        // each login, and not at all while a refusal recorded by another process applies.
        pin: source.pin_pad ? 'pad' : source.pin_per_request ? 'per-request' : () => this.storedPin(source, attempt),
        ...(source.pin_per_request ? { tries: this.pinTries.forToken(tokenKey(settings.module, tokenLabel)) } : {}),
      };
      return this.deps.openPkcs11 ? this.deps.openPkcs11(options) : bridge.createPkcs11Chip(options);
    };
    if (!settings.all_tokens && !settings.more_tokens?.length) return openOne(settings.token_label, settings);
    // Several tokens: one chip each, its own session and PIN source.
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
   * `current` (the settings in use, not ones replaced meanwhile), is recorded in the config dir.
   */
  private refused(error: unknown, attempt: Attempt, current: boolean): unknown {
    if (!isPinRejection(error)) return error;
    if (current && !this.latched(attempt.settings)) {
      const record: PinLatchRecord = {
        settings: settingsDigest(attempt.settings),
        pin_files: attempt.pinFiles,
        reason: error.message,
        code: error.code,
        at: (this.deps.now?.() ?? new Date()).toISOString(),
      };
      try {
        this.deps.latch.write(record);
      } catch {
        this.unsaved = record; // the config dir refused the write: this process holds it
      }
    }
    return pinRejectedError(error, attempt.settings);
  }

  /**
   * The token may refuse the PIN after the chip opened (a reconnect after the session was lost,
   * with the PIN changed meanwhile): latch then too, and drop the chip.
   */
  private watch(chip: Chip, attempt: Attempt, current: () => boolean): Chip {
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
        throw this.refused(error, attempt, latch);
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

  /** The stored PIN for one login, noting the PIN files it was read with. */
  private storedPin(source: ChipPinSource, attempt: Attempt): string {
    const refused = this.latched(attempt.settings);
    if (refused) throw refused;
    attempt.pinFiles = pinFilesMark(attempt.settings);
    return readPin(source, this.deps.readVar);
  }

  async close(): Promise<void> {
    const chip = this.chip;
    this.chip = null;
    this.opened = null;
    if (chip) await chip.then((c) => c.close()).catch(() => undefined);
  }
}

/** A token as the `chip_pin` counts know it: its module and its label as configured (none: the one token there). */
function tokenKey(module: string, label: string | null): string {
  return `${module}\u0000${label ?? ''}`;
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
