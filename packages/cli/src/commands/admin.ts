import { dirname, join } from 'node:path'
import type { AdminCommand, CliIo } from '@tollgate/service'
import { defineCommand, type SubCommandsDef } from 'citty'
import { type TollgateContext, UsageError, writeError, writeLine } from '../tollgate-context.js'

// The admin commands: parsing here, the work in the service's runAdminCommand / runWorkerCommand /
// runListenCommand. The service module loads only when a command runs.
const databaseHelp =
  '(database: DATABASE_URL, else the PGlite directory TOLLGATE_DATA_DIR; with PGlite stop the sandbox first)'

async function toServiceIo({ io }: TollgateContext): Promise<CliIo> {
  const { loadSecretKeyring, openDatabase, parseServiceEnv } = await import('@tollgate/service')
  const env = parseServiceEnv(io.env)
  return {
    openDatabase: () => openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR }),
    out: (text) => writeLine(io, text),
    err: (text) => writeError(io, text),
    signal: io.signal,
    manifestPath: env.TOLLGATE_MANIFEST ?? join(dirname(env.TOLLGATE_DATA_DIR), 'sandbox.json'),
    fetch: (url, init) => io.fetch(url, init),
    secretKeyring: () =>
      loadSecretKeyring({ secretKeys: env.TOLLGATE_SECRET_KEYS, dataDir: env.TOLLGATE_DATA_DIR }),
    dataDir: env.TOLLGATE_DATA_DIR,
  }
}

async function runAdmin(context: TollgateContext, command: AdminCommand): Promise<void> {
  const { runAdminCommand } = await import('@tollgate/service')
  context.setExitCode(await runAdminCommand(command, await toServiceIo(context)))
}

function group(name: string, description: string, subCommands: SubCommandsDef) {
  return defineCommand({ meta: { name, description }, subCommands })
}

/** `tollgate merchants create|list|verify|payout-limit`. */
export function createMerchantsCommand(context: TollgateContext) {
  return group('merchants', `Create, list and verify merchants. ${databaseHelp}`, {
    create: defineCommand({
      meta: { name: 'create', description: 'Create a merchant' },
      args: { name: { type: 'string', required: true, description: "The merchant's name" } },
      run: ({ args }) => runAdmin(context, { command: 'merchants create', name: args.name }),
    }),
    list: defineCommand({
      meta: { name: 'list', description: 'List the merchants' },
      run: () => runAdmin(context, { command: 'merchants list' }),
    }),
    verify: defineCommand({
      meta: {
        name: 'verify',
        description: 'Mark a merchant verified (verified businesses may pay out cross-border)',
      },
      args: {
        merchant: { type: 'positional', required: true, valueHint: 'mer_…', description: 'The merchant id' },
        off: { type: 'boolean', description: 'Remove the verification' },
      },
      run: ({ args }) =>
        runAdmin(context, { command: 'merchants verify', merchantId: args.merchant, off: args.off === true }),
    }),
    'payout-limit': defineCommand({
      meta: { name: 'payout-limit', description: "Set a merchant's daily payout limit in USD" },
      args: {
        merchant: { type: 'positional', required: true, description: 'The merchant id (mer_…)' },
        amount: { type: 'string', required: true, description: 'USD decimal, or `default`' },
      },
      run: ({ args }) =>
        runAdmin(context, {
          command: 'merchants payout-limit',
          merchantId: args.merchant,
          amount: args.amount,
        }),
    }),
  })
}

/** `tollgate keys create|list|revoke`. */
export function createKeysCommand(context: TollgateContext) {
  return group('keys', `Create, list and revoke API keys. ${databaseHelp}`, {
    create: defineCommand({
      meta: { name: 'create', description: 'Create an API key (shown once)' },
      args: {
        merchant: { type: 'string', required: true, description: 'The merchant id (mer_…)' },
        env: {
          type: 'enum',
          options: ['test', 'live'],
          required: true,
          description: 'sk_test_ (sandbox) or sk_live_ key',
        },
        format: {
          type: 'enum',
          options: ['current', 'legacy'],
          description: 'Response format (default current)',
        },
        label: { type: 'string', description: 'A label to recognise the key by' },
      },
      run: ({ args }) =>
        runAdmin(context, {
          command: 'keys create',
          // Required above (citty checks); the service checks again.
          merchant: args.merchant ?? '',
          env: args.env ?? '',
          ...(args.format === undefined ? {} : { format: args.format }),
          ...(args.label === undefined ? {} : { label: args.label }),
        }),
    }),
    list: defineCommand({
      meta: { name: 'list', description: 'List API keys (never the secrets)' },
      args: { merchant: { type: 'string', description: 'Only this merchant (mer_…)' } },
      run: ({ args }) =>
        runAdmin(context, { command: 'keys list', ...(args.merchant ? { merchant: args.merchant } : {}) }),
    }),
    revoke: defineCommand({
      meta: { name: 'revoke', description: 'Revoke an API key' },
      args: { key: { type: 'positional', required: true, description: 'The key id (key_…)' } },
      run: ({ args }) => runAdmin(context, { command: 'keys revoke', keyId: args.key }),
    }),
  })
}

/** `tollgate balances --merchant <mer_…>`. */
export function createBalancesCommand(context: TollgateContext) {
  return defineCommand({
    meta: { name: 'balances', description: `Print a merchant's balances. ${databaseHelp}` },
    args: {
      merchant: { type: 'string', required: true, description: 'The merchant id (mer_…)' },
      env: { type: 'enum', options: ['test', 'live'], description: 'Environment (default test)' },
    },
    run: ({ args }) =>
      runAdmin(context, {
        command: 'balances',
        merchant: args.merchant,
        ...(args.env === undefined ? {} : { env: args.env }),
      }),
  })
}

/** `tollgate sandbox fund`. */
export function createSandboxCommand(context: TollgateContext) {
  return group('sandbox', `Sandbox helpers. ${databaseHelp}`, {
    fund: defineCommand({
      meta: { name: 'fund', description: "Credit a merchant's test balance" },
      args: {
        merchant: { type: 'string', required: true, description: 'The merchant id (mer_…)' },
        currency: { type: 'enum', options: ['USDT', 'USDC', 'NGN'], required: true, description: 'Currency' },
        amount: { type: 'string', required: true, description: 'Decimal amount, e.g. 25.50' },
      },
      run: ({ args }) =>
        runAdmin(context, {
          command: 'sandbox fund',
          merchant: args.merchant ?? '',
          currency: args.currency ?? '',
          amount: args.amount ?? '',
        }),
    }),
  })
}

/** `tollgate listen --forward-to <url>`. */
export function createListenCommand(context: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'listen',
      description:
        "Forward the running sandbox's webhook events to a local URL, signed, one line per attempt (reads the sandbox manifest; no database)",
    },
    args: {
      'forward-to': {
        type: 'string',
        required: true,
        valueHint: 'url',
        description: 'Where to POST the events',
      },
      events: { type: 'string', valueHint: 'type,type', description: 'Only these event types' },
    },
    run: async ({ args }) => {
      const { runListenCommand } = await import('@tollgate/service')
      context.setExitCode(
        await runListenCommand(
          { forwardTo: args['forward-to'], events: args.events },
          await toServiceIo(context),
        ),
      )
    },
  })
}

/** `tollgate worker --config <file>` or `tollgate worker --sandbox`. */
export function createWorkerCommand(context: TollgateContext) {
  return defineCommand({
    meta: {
      name: 'worker',
      description:
        "Run the service's background jobs (webhook deliveries, sweeps, payout re-queries, expiries) until Ctrl-C, on the composition of `tollgate serve --config <file>` (same file and environment) or, with --sandbox, beside `npm start`. Refuses to start with neither",
    },
    args: {
      config: {
        type: 'string',
        alias: 'c',
        valueHint: 'tollgate.config.json',
        description:
          'The configuration file of `tollgate serve` (or TOLLGATE_CONFIG); required without --sandbox',
      },
      sandbox: {
        type: 'boolean',
        description: `Run beside the sandbox (npm start): its manifest's chains and its master seed ${databaseHelp}`,
      },
    },
    run: async ({ args }) => {
      const configPath = args.config ?? context.io.env.TOLLGATE_CONFIG
      if (args.sandbox === true && args.config !== undefined) {
        throw new UsageError('--config and --sandbox exclude each other')
      }
      if (args.sandbox !== true && !configPath) {
        throw new UsageError(
          '--config is required (the file of `tollgate serve`, or set TOLLGATE_CONFIG); --sandbox runs beside `npm start`',
        )
      }
      const { runWorkerCommand } = await import('@tollgate/service')
      writeError(context.io, 'worker: running the background jobs until Ctrl-C')
      const io = await toServiceIo(context)
      context.setExitCode(
        await runWorkerCommand(
          args.sandbox === true
            ? { sandbox: true }
            : { configPath: configPath as string, env: context.io.env },
          io,
        ),
      )
    },
  })
}
