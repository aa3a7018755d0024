import { runCommand } from 'citty';
import { readEnv } from '../config/env';
import { versionLine } from '../config/version';
import { checkCommandLine, commandForHelp } from './args-check';
import { mainCommand } from './command-tree';
import { helpWidth, renderHelp } from './help';
import { failLine, paint } from './output';

/**
 * citty's runMain prints whole error objects (stacks) for unexpected errors; CONTRACT wants one
 * red line and a non-zero exit, so we drive runCommand ourselves. Unknown flags and commands are
 * usage errors (exit 2) before anything runs (args-check.ts).
 */
export async function runCli(rawArgs: string[]): Promise<void> {
  try {
    if (rawArgs.length === 0 || rawArgs.includes('--help') || rawArgs.includes('-h')) {
      const [cmd, path] = await commandForHelp(mainCommand, rawArgs);
      // Colour (bold headings) only on a terminal without NO_COLOR; wrapped to its width.
      process.stdout.write(paint(await renderHelp(cmd, path, helpWidth(process.stdout)), process.stdout, readEnv().noColor) + '\n');
      return;
    }
    if (rawArgs.length === 1 && (rawArgs[0] === '--version' || rawArgs[0] === '-v')) {
      // The commit too: which build runs on a machine of a fleet, as /health says it.
      process.stdout.write(`${versionLine()}\n`);
      return;
    }
    await checkCommandLine(mainCommand, rawArgs);
    await runCommand(mainCommand, { rawArgs });
  } catch (error) {
    process.exitCode = failLine(error);
  }
}
