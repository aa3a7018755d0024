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
    verify: () => import('./commands/verify').then((m) => m.verifyCommand as CommandDef),
    status: () => import('./commands/status').then((m) => m.statusCommand as CommandDef),
    service: () => import('./commands/service').then((m) => m.serviceCommand as CommandDef),
    enrol: () => import('./commands/enrol').then((m) => m.enrolCommand as CommandDef),
    sign: () => import('./commands/sign').then((m) => m.signCommand as CommandDef),
    results: () => import('./commands/service-lists').then((m) => m.resultsCommand as CommandDef),
    errors: () => import('./commands/service-lists').then((m) => m.errorsCommand as CommandDef),
    credentials: () => import('./commands/service-lists').then((m) => m.credentialsCommand as CommandDef),
    designs: () => import('./commands/service-lists').then((m) => m.designsCommand as CommandDef),
    'chip:retry-pin': () => import('./commands/chip').then((m) => m.chipRetryPinCommand as CommandDef),
    'design:list': () => import('./commands/design').then((m) => m.designListCommand as CommandDef),
    'design:add': () => import('./commands/design').then((m) => m.designAddCommand as CommandDef),
    'design:remove': () => import('./commands/design').then((m) => m.designRemoveCommand as CommandDef),
    'design:preview': () => import('./commands/design').then((m) => m.designPreviewCommand as CommandDef),
    version: () => import('./commands/version').then((m) => m.versionCommand as CommandDef),
  },
});
