import { defineCommand, runCommand, type CommandDef } from 'citty';
import { LocalsignError } from '../../domain/errors';
import { initArgs, readEnrolment, redact, removeEnrolment } from '../../install/enrolment';

/**
 * `localsign enrol --file FILE`: what installers run to pair a machine of a fleet (install/enrolment.ts).
 * `init` runs in this process, so the code is on no command line; the file goes once paired.
 */
export const enrolCommand = defineCommand({
  meta: { name: 'enrol', description: 'Pair from an enrolment file (PLATFORM=, CODE=) written by an installer; the file is deleted once paired' },
  args: {
    file: { type: 'string', description: 'The enrolment file (KEY=value lines)', required: true },
    json: { type: 'boolean', description: 'Machine-readable output' },
    home: { type: 'string', description: 'Config dir (default: the installed service\'s, else $LOCALSIGN_HOME or ~/.localsign)' },
  },
  async run({ args }) {
    const file = args.file as string;
    const enrolment = readEnrolment(file);
    const { initCommand } = await import('./init');
    const rawArgs = [...initArgs(enrolment), ...(args.json ? ['--json'] : []), ...(args.home ? ['--home', args.home as string] : [])];
    try {
      await runCommand(initCommand as CommandDef, { rawArgs });
    } catch (error) {
      const message = redact(error instanceof Error ? error.message : String(error), enrolment);
      throw new LocalsignError(isKind(error), `enrolment failed, ${file} is kept for the next try (localsign enrol --file ${file}): ${message}`);
    }
    removeEnrolment(file);
  },
});

const isKind = (error: unknown) => (error instanceof LocalsignError ? error.kind : 'internal');
