import { defineCommand } from 'citty';
import { escapeControls } from '../../log/escape';
import { commonArgs, openExistingContext } from '../settings';
import { printData } from '../output';

/**
 * `chip:retry-pin`: after the token refused the chip's stored PIN, nothing presents it again
 * (chip/pin-latch.ts) until the operator acts. This is that act when neither the settings nor the
 * PIN file changed: the PIN variable was corrected (and the service restarted), or the token was
 * made to accept the PIN (reset with the vendor tool, unblocked with the PUK). The running
 * service notices it at its next use of the chip, without a restart.
 */
export const chipRetryPinCommand = defineCommand({
  meta: { name: 'chip:retry-pin', description: "Let the chip's PIN be tried once more after the token refused it (fix the PIN, or the token, first)" },
  args: { ...commonArgs },
  async run({ args, rawArgs }) {
    const ctx = openExistingContext(args, rawArgs);
    try {
      const record = ctx.chips.liftRefusal();
      const out = { lifted: record !== null, refused: record ? { reason: record.reason, code: record.code, at: record.at } : null };
      printData(Boolean(args.json), out, () =>
        record
          ? escapeControls(`The token refused the PIN at ${record.at} (${record.reason}). It will be tried once at the next use of the chip (a sign request, a sync); refused again, the chip stays shut until you act again.`)
          : 'No refused chip PIN is recorded in this config dir: nothing to do.',
      );
    } finally {
      await ctx.close();
    }
  },
});
