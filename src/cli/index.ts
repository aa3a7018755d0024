import { defineCommand, type CommandDef } from 'citty';
import { VERSION } from '../config/version';

/**
 * The command tree. Subcommands load lazily (citty's playground pattern), so `--help` and light
 * commands never load the HTTP stack, pdf-lib or the chip bridge.
 */
export const mainCommand: CommandDef = defineCommand({
  meta: { name: 'localsign', version: VERSION, description: 'Local signing service: PAdES PDF signatures and EVM transaction-hash signatures' },
  subCommands: {
    serve: () => import('./commands/serve').then((m) => m.serveCommand as CommandDef),
    init: () => import('./commands/init').then((m) => m.initCommand as CommandDef),
    sync: () => import('./commands/sync').then((m) => m.syncCommand as CommandDef),
    'wrapper:create': () => import('./commands/wrapper').then((m) => m.wrapperCreateCommand as CommandDef),
    'wrapper:list': () => import('./commands/wrapper').then((m) => m.wrapperListCommand as CommandDef),
    'wrapper:revoke': () => import('./commands/wrapper').then((m) => m.wrapperRevokeCommand as CommandDef),
    report: () => import('./commands/report').then((m) => m.reportCommand as CommandDef),
    status: () => import('./commands/status').then((m) => m.statusCommand as CommandDef),
  },
});
