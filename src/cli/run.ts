import { runCommand, showUsage } from 'citty';
import { mainCommand } from './index';
import { failLine } from './output';

/**
 * citty's runMain prints whole error objects (stacks) for unexpected errors; CONTRACT wants one
 * red line and a non-zero exit, so we drive runCommand ourselves.
 */
export async function runCli(rawArgs: string[]): Promise<void> {
  try {
    if (rawArgs.length === 0 || rawArgs.includes('--help') || rawArgs.includes('-h')) {
      const sub = rawArgs.find((a) => !a.startsWith('-'));
      const subCommands = (await mainCommand.subCommands) as Record<string, () => Promise<import('citty').CommandDef>>;
      if (sub && subCommands[sub]) await showUsage(await subCommands[sub](), mainCommand);
      else await showUsage(mainCommand);
      return;
    }
    if (rawArgs.length === 1 && (rawArgs[0] === '--version' || rawArgs[0] === '-v')) {
      process.stdout.write(`${(await mainCommand.meta as { version: string }).version}\n`);
      return;
    }
    await runCommand(mainCommand, { rawArgs });
  } catch (error) {
    process.exitCode = failLine(error);
  }
}
