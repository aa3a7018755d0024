import { defineCommand } from 'citty';
import { escapeControls as shown } from '../../log/escape';
import { printData, UsageError } from '../output';
import { checkChainArgs, printChain } from './credential-chain';
import { serviceArgs, serviceClient } from '../service-client';

/**
 * The service's lists, as the application key sees them (`GET /v1/results`, `/v1/errors`,
 * `/v1/credentials`, `/v1/designs`): tables for people, the API's JSON with --json. Names and
 * keys come from the platform or from requests: each goes through the logs' escaping (`shown`) before
 * it reaches the terminal, so none can move the cursor or reorder a line.
 */

function parseLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(String(value)) || Number(value) === 0) throw new UsageError(`--limit must be a positive integer, got "${String(value).slice(0, 20)}"`);
  return Number(value);
}

export const resultsCommand = defineCommand({
  meta: { name: 'results', description: "This application key's recent signing requests, newest first (GET /v1/results)" },
  args: { ...serviceArgs, limit: { type: 'string', description: 'How many (default 50, at most 1000)' } },
  async run({ args, rawArgs }) {
    const limit = parseLimit(args.limit);
    const list = await serviceClient(args, rawArgs).listResults({ limit });
    printData(Boolean(args.json), list, () =>
      list.results.length === 0
        ? 'No signing requests for this application key'
        : list.results.map((r) => `${r.request_id}  ${r.status.padEnd(7)}  ${r.kind.padEnd(10)}  ${shown(r.credential_key)}  ${r.created_at}${r.completed_at ? `  done ${r.completed_at}` : ''}`).join('\n'),
    );
  },
});

export const errorsCommand = defineCommand({
  meta: { name: 'errors', description: "This application key's recorded errors, newest first, without tracebacks (GET /v1/errors)" },
  args: { ...serviceArgs, limit: { type: 'string', description: 'How many (default 20, at most 1000)' }, 'request-id': { type: 'string', description: 'Only the errors of this request' } },
  async run({ args, rawArgs }) {
    const limit = parseLimit(args.limit);
    const list = await serviceClient(args, rawArgs).listErrors({ limit, requestId: args['request-id'] as string | undefined });
    printData(Boolean(args.json), list, () =>
      list.errors.length === 0
        ? 'No recorded errors'
        : list.errors.map((e) => `${e.error_id}  ${e.ts}  ${e.status ?? 'async'}  ${e.request_id ?? '-'}  ${shown(e.short)}`).join('\n'),
    );
  },
});

export const credentialsCommand = defineCommand({
  meta: { name: 'credentials', description: 'The credentials this application key may use (GET /v1/credentials)' },
  args: {
    ...serviceArgs,
    chain: { type: 'string', description: "A credential_key: its certificate chain, signer first, root last (pades credentials)" },
    pem: { type: 'boolean', description: "With --chain: the chain's root as PEM, the trust anchor `verify --trust` takes (stdout, or --out)" },
    out: { type: 'string', alias: 'o', description: 'With --pem: write the root to this file (atomically) instead of stdout' },
  },
  async run({ args, rawArgs }) {
    const chain = checkChainArgs(args);
    const list = await serviceClient(args, rawArgs).listCredentials();
    if (chain) return printChain(list.credentials, chain);
    printData(Boolean(args.json), list, () =>
      list.credentials.length === 0
        ? 'No credentials (is the machine paired? `localsign init`)'
        : list.credentials.map((c) => `${shown(c.credential_key)}  ${c.type.padEnd(5)}  ${c.engine.padEnd(8)}  ${shown(c.name)}${c.address ? `  ${shown(c.address)}` : ''}`).join('\n'),
    );
  },
});

export const designsCommand = defineCommand({
  meta: { name: 'designs', description: 'The stamp designs the service serves, with their variables (GET /v1/designs)' },
  args: { ...serviceArgs },
  async run({ args, rawArgs }) {
    const list = await serviceClient(args, rawArgs).listDesigns();
    printData(Boolean(args.json), list, () =>
      list.designs.length === 0
        ? 'No designs'
        : list.designs.map((d) => `${shown(d.design_key)}  ${shown(d.name)}: ${d.variables.map((v) => `${shown(v.name)}${v.required ? ' (required)' : ''}`).join(', ') || 'no variables'}`).join('\n'),
    );
  },
});
