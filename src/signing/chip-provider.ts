import { readFileSync } from 'node:fs';
import { ChipError } from '../errors/errors';
import { createSoftChip } from '../chip/soft-chip';
import type { Chip } from '../chip/types';
import type { ChipSettings } from '../platform/embedded-config';
import type { SignTask, SignTaskResult } from './sign-tasks';

/**
 * Opens the configured chip once and hands the same instance to every job. The PKCS#11 bridge is
 * imported lazily, so `--help`, the soft chip and the tests never load native code.
 */
export class ChipProvider {
  private chip: Promise<Chip> | null = null;
  private settingsKey = '';

  constructor(
    private readonly deps: {
      softChipPath: string;
      runTask: (task: SignTask) => Promise<SignTaskResult>;
      readVar: (name: string) => string | undefined;
    },
  ) {}

  get(settings: ChipSettings): Promise<Chip> {
    const key = JSON.stringify(settings);
    if (!this.chip || key !== this.settingsKey) {
      const previous = this.chip;
      this.settingsKey = key;
      this.chip = this.open(settings);
      this.chip.catch(() => {
        if (this.settingsKey === key) this.chip = null; // retry on the next request
      });
      void previous?.then((c) => c.close()).catch(() => undefined);
    }
    return this.chip;
  }

  private async open(settings: ChipSettings): Promise<Chip> {
    if (settings.kind === 'soft') return createSoftChip(this.deps.softChipPath, this.deps.runTask);
    const { createPkcs11Chip } = await import('../chip/pkcs11');
    return createPkcs11Chip({
      modulePath: settings.module,
      tokenLabel: settings.token_label ?? undefined,
      pin: () => readPin(settings, this.deps.readVar),
    });
  }

  async close(): Promise<void> {
    const chip = this.chip;
    this.chip = null;
    if (chip) await chip.then((c) => c.close()).catch(() => undefined);
  }
}

/** The PIN is read when needed from the place the operator chose, and never stored elsewhere. */
function readPin(settings: Extract<ChipSettings, { kind: 'pkcs11' }>, readVar: (name: string) => string | undefined): string {
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
