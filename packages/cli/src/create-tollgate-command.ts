import { type CommandDef, defineCommand } from 'citty'
import type { TollgateContext } from './tollgate-context.js'

/** Commands whose arguments go through untouched to a parser of their own (no unknown-flag check here). */
export const passThroughCommands: ReadonlySet<string> = new Set(['start', 'pay', 'address'])

/**
 * The `tollgate` root command. Each subcommand's definition loads on demand, and none imports the
 * service, the agent or a native addon until it runs, so `tollgate --help` stays fast.
 */
export function createTollgateCommand(context: TollgateContext): CommandDef {
  return defineCommand({
    meta: {
      name: 'tollgate',
      version: '0.1.0',
      description: 'Tollgate: x402 payments, the merchant payments service and its sandbox',
    },
    subCommands: {
      start: () => import('./commands/start.js').then((m) => m.createStartCommand(context)),
      serve: () => import('./commands/serve.js').then((m) => m.createServeCommand(context)),
      pay: () => import('./commands/pay.js').then((m) => m.createPayCommand(context)),
      address: () => import('./commands/pay.js').then((m) => m.createAddressCommand(context)),
      facilitator: () => import('./commands/facilitator.js').then((m) => m.createFacilitatorCommand(context)),
      merchants: () => import('./commands/admin.js').then((m) => m.createMerchantsCommand(context)),
      keys: () => import('./commands/admin.js').then((m) => m.createKeysCommand(context)),
      balances: () => import('./commands/admin.js').then((m) => m.createBalancesCommand(context)),
      sandbox: () => import('./commands/admin.js').then((m) => m.createSandboxCommand(context)),
      listen: () => import('./commands/admin.js').then((m) => m.createListenCommand(context)),
      worker: () => import('./commands/admin.js').then((m) => m.createWorkerCommand(context)),
    },
  })
}
