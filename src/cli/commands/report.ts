import { defineCommand } from 'citty';
import { LocalsignError } from '../../errors/errors';
import { writeFileAtomic } from '../../store/atomic-file';
import { assertConfirmable, confirm } from '../confirm';
import { commonArgs, openContext } from '../settings';
import { printData, UsageError } from '../output';

export const reportCommand = defineCommand({
  meta: { name: 'report', description: "Show a request's recorded errors, confirm, then send them (embedded platform: write them to --out FILE)" },
  args: {
    ...commonArgs,
    request_id: { type: 'positional', description: 'The req_… id', required: false },
    yes: { type: 'boolean', description: 'Proceed without asking' },
    out: { type: 'string', description: 'File to write the incident bundle to (embedded platform)' },
  },
  async run({ args, rawArgs }) {
    const requestId = args.request_id as string | undefined;
    if (!requestId) throw new UsageError('report needs a request id (req_…)');
    const ctx = openContext(args, rawArgs);
    try {
      const errors = ctx.errors.readRecords().filter((r) => r.request_id === requestId);
      if (errors.length === 0) throw new LocalsignError('not_found', `no recorded errors for ${requestId.slice(0, 64)}`);
      const bundle = { request_id: requestId, errors };
      const pairing = ctx.currentPairing();
      const destination = pairing?.platform === 'remote' ? `the platform at ${pairing.platform_url}` : args.out ? `the file ${String(args.out)}` : null;
      if (!destination) throw new UsageError('the embedded platform keeps incidents local: name the file with --out FILE');
      if (pairing?.platform === 'remote') throw new LocalsignError('invalid', 'sending incidents to a remote platform is not available in this version; use --out FILE');
      const answer = { yes: Boolean(args.yes), isTty: Boolean(process.stdin.isTTY) };
      // No way to confirm: fail with one line before showing the bundle (it would be a second line).
      assertConfirmable(answer);
      // Show exactly what would leave the machine, on stderr so --json stdout stays the result.
      process.stderr.write(`This will be written to ${destination}:\n${JSON.stringify(bundle, null, 2)}\n`);
      const ok = await confirm(`Send ${errors.length} error record(s) for ${requestId}?`, answer);
      if (!ok) throw new LocalsignError('invalid', 'not sent: the operator declined');
      writeFileAtomic(String(args.out), JSON.stringify(bundle, null, 2) + '\n');
      printData(Boolean(args.json), { ok: true, request_id: requestId, errors: errors.length, written_to: String(args.out) }, () => `Wrote ${errors.length} error record(s) for ${requestId} to ${String(args.out)}`);
    } finally {
      await ctx.close();
    }
  },
});
