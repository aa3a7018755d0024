import { defineCommand } from 'citty';
import { LocalsignError } from '../../domain/errors';
import { commonArgs, openContext, openExistingContext } from '../settings';
import { printData, repeatedFlag } from '../output';

export const wrapperCreateCommand = defineCommand({
  meta: { name: 'wrapper:create', description: 'Create application credentials (the secret is printed once)' },
  args: {
    ...commonArgs,
    name: { type: 'string', description: 'A name to recognise the application by' },
    credential: { type: 'string', description: 'Limit to this credential_key (repeatable)' },
  },
  async run({ args, rawArgs }) {
    const ctx = openContext(args, rawArgs);
    try {
      const credentials = repeatedFlag(rawArgs, 'credential');
      const known = new Set(ctx.cache.get().credentials.map((c) => c.credential_key));
      const unknown = credentials.filter((k) => !known.has(k));
      if (unknown.length > 0) throw new LocalsignError('invalid', `unknown credential_key: ${unknown.join(', ')} (see GET /v1/credentials, or run sync)`);
      const { record, secret } = ctx.wrappers.create({ name: (args.name as string | undefined) ?? 'default', credentials, now: ctx.now() });
      const out = { key: record.key, secret, name: record.name, credentials: record.credentials };
      printData(Boolean(args.json), out, () =>
        [
          `X-Wrapper-Key: ${out.key}`,
          `X-Wrapper-Secret: ${out.secret}`,
          `(name "${out.name}", ${out.credentials ? `credentials ${out.credentials.join(', ')}` : 'all credentials'}; the secret is shown only now)`,
        ].join('\n'),
      );
    } finally {
      await ctx.close();
    }
  },
});

export const wrapperListCommand = defineCommand({
  meta: { name: 'wrapper:list', description: 'List application keys (never secrets)' },
  args: { ...commonArgs },
  async run({ args, rawArgs }) {
    // Listing creates nothing (`--home /nonexistent` must not create that dir).
    const ctx = openExistingContext(args, rawArgs);
    try {
      const wrappers = ctx.wrappers.list().map((w) => ({ key: w.key, name: w.name, credentials: w.credentials, created_at: w.created_at, revoked_at: w.revoked_at }));
      printData(Boolean(args.json), { wrappers }, () =>
        wrappers.length === 0
          ? 'No application keys; create one with `localsign wrapper:create`'
          : wrappers.map((w) => `${w.key}  ${w.revoked_at ? 'revoked' : 'active '}  ${w.name}  ${w.credentials ? w.credentials.join(',') : 'all credentials'}`).join('\n'),
      );
    } finally {
      await ctx.close();
    }
  },
});

export const wrapperRevokeCommand = defineCommand({
  meta: { name: 'wrapper:revoke', description: 'Revoke an application key: the running service refuses it on the next request' },
  args: { ...commonArgs, key: { type: 'positional', description: 'The wrp_… key', required: true } },
  async run({ args, rawArgs }) {
    const ctx = openExistingContext(args, rawArgs);
    try {
      const key = String(args.key);
      const before = ctx.wrappers.list().find((x) => x.key === key);
      // Saying "Revoked" for a key revoked long ago hides a typo or a script run twice.
      if (before?.revoked_at) throw new LocalsignError('invalid', `${key} was already revoked at ${before.revoked_at}`);
      const w = ctx.wrappers.revoke(key, ctx.now());
      printData(Boolean(args.json), { key: w.key, revoked_at: w.revoked_at }, () => `Revoked ${w.key}`);
    } finally {
      await ctx.close();
    }
  },
});
