import { defineCommand } from 'citty';
import { LocalsignError } from '../../domain/errors';
import { assertOutputFolder, writeOutputFile } from '../output-file';
import { assertConfirmable, confirm } from '../confirm';
import { commonArgs, openExistingContext } from '../settings';
import { printData, UsageError } from '../output';

export const reportCommand = defineCommand({
  meta: { name: 'report', description: "Show a request's recorded errors, confirm, then send them to the platform as an incident (embedded platform: write them to --out FILE)" },
  args: {
    ...commonArgs,
    request_id: { type: 'positional', description: 'The req_… id of the request, or the err_… id of one error (a 422 has no request)', required: true },
    yes: { type: 'boolean', description: 'Proceed without asking' },
    out: { type: 'string', description: 'File to write the incident bundle to (embedded platform)' },
  },
  async run({ args, rawArgs }) {
    const id = String(args.request_id);
    const ctx = openExistingContext(args, rawArgs);
    try {
      const records = ctx.errors.readRecords();
      // Only what the request's own application caused (CONTRACT): a record carries a request id
      // only when its application owns that request, and records with no application never do.
      const errors = id.startsWith('err_') ? records.filter((r) => r.error_id === id) : records.filter((r) => r.request_id === id && r.wrapper_key);
      if (errors.length === 0) throw new LocalsignError('not_found', `no recorded errors for ${id.slice(0, 64)}`);
      const requestId = errors[0]!.request_id ?? null;
      const bundle = { request_id: requestId, errors };
      const label = requestId ?? id;
      const remote = ctx.currentRemote();
      const pairing = ctx.currentPairing();
      if (!remote && !args.out) throw new UsageError('the embedded platform keeps incidents local: name the file with --out FILE');
      if (!remote) assertOutputFolder(String(args.out));
      const destination = remote && pairing?.platform === 'remote' ? `the platform at ${pairing.platform_url}` : `the file ${String(args.out)}`;
      const answer = { yes: Boolean(args.yes), isTty: Boolean(process.stdin.isTTY) };
      // No way to confirm: fail with one line before showing the bundle (it would be a second line).
      assertConfirmable(answer);
      // Show exactly what would leave the machine, on stderr so --json stdout stays the result.
      process.stderr.write(`This will be ${remote ? 'sent to' : 'written to'} ${destination}:\n${JSON.stringify(bundle, null, 2)}\n`);
      const ok = await confirm(`${remote ? 'Send' : 'Write'} ${errors.length} error record(s) for ${label}?`, answer);
      if (!ok) throw new LocalsignError('invalid', `not ${remote ? 'sent' : 'written'}: the operator declined`);
      if (remote) {
        // PLATFORM.md "Incident report": the records exactly as in errors.jsonl, only after confirmation.
        const incidentId = await remote.sendIncident(requestId, errors);
        printData(Boolean(args.json), { ok: true, request_id: requestId, errors: errors.length, incident_id: incidentId }, () => `Sent ${errors.length} error record(s) for ${label}: incident ${incidentId}`);
      } else {
        writeOutputFile(String(args.out), JSON.stringify(bundle, null, 2) + '\n', 0o600);
        printData(Boolean(args.json), { ok: true, request_id: requestId, errors: errors.length, written_to: String(args.out) }, () => `Wrote ${errors.length} error record(s) for ${label} to ${String(args.out)}`);
      }
    } finally {
      await ctx.close();
    }
  },
});
