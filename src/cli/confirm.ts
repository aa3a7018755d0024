import { createInterface } from 'node:readline/promises';
import { LocalsignError } from '../domain/errors';

/**
 * CONTRACT: never prompt when stdin is not a TTY unless --yes (then proceed) — otherwise fail with
 * a clear message. On a TTY: ask, default No.
 */
export async function confirm(question: string, o: { yes: boolean; isTty: boolean }): Promise<boolean> {
  if (o.yes) return true;
  assertConfirmable(o);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** Lets a command fail before printing anything: a failure is one line on stderr (CONTRACT "Command line"). */
export function assertConfirmable(o: { yes: boolean; isTty: boolean }): void {
  if (!o.yes && !o.isTty) throw new LocalsignError('invalid', 'confirmation needed but stdin is not a terminal; re-run with --yes to proceed');
}
