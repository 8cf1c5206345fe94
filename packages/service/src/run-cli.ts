import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { isAppError } from '@tollgate/core'
import { createApiKey } from './auth/create-api-key.js'
import { listApiKeys } from './auth/list-api-keys.js'
import { revokeApiKey } from './auth/revoke-api-key.js'
import { toBalanceResponse } from './balances/to-balance-response.js'
import type { OpenedDatabase } from './db/open-database.js'
import { createIdGenerator, systemClock } from './deps.js'
import { createLogger } from './http/create-logger.js'
import { runWorker } from './jobs/run-worker.js'
import { getBalances } from './ledger/get-balances.js'
import { createMerchant } from './merchants/create-merchant.js'
import { listMerchants } from './merchants/list-merchants.js'
import { setPayoutDailyLimit, verifyMerchant } from './merchants/verify-merchant.js'
import { fundBalance, type SandboxCurrency, sandboxCurrencyScales } from './sandbox/fund-sandbox-merchant.js'
import { forwardEvents } from './webhooks/forward-events.js'

/** Usage text of the `tollgate` admin CLI. */
export const cliUsage = `usage: tollgate <command>
  merchants create --name <name>
  merchants list
  merchants verify <mer_…> [--off]           (verified businesses may pay out cross-border)
  merchants payout-limit <mer_…> --amount <usd>|default
  keys create --merchant <mer_…> --env test|live [--format current|legacy] [--label <text>]
  keys list [--merchant <mer_…>]
  keys revoke <key_…>
  balances --merchant <mer_…> [--env test|live]
  sandbox fund --merchant <mer_…> --currency USDT|USDC|NGN --amount <decimal>
  listen --forward-to <url> [--events <type,type>]
      forward the running sandbox's webhook events to a local URL, signed, one line per attempt
      (reads apiUrl and apiKey from the sandbox manifest; needs no database)
  worker
      run the service's background jobs (webhook deliveries, expiries) until Ctrl-C
Database: DATABASE_URL, else the PGlite directory TOLLGATE_DATA_DIR (default .tollgate/data).
With PGlite, stop the sandbox first: one process at a time may open the data directory (a second
one is refused, naming the process that holds it).`

/**
 * What the CLI talks to: the database opener, two output lines sinks (JSON results, messages), and
 * for the long-running `listen` and `worker` the signal that stops them and the sandbox manifest.
 */
export type CliIo = {
  openDatabase: () => Promise<OpenedDatabase>
  out: (text: string) => void
  err: (text: string) => void
  /** Aborted on Ctrl-C; `listen` and `worker` run until then. */
  signal?: AbortSignal
  /** The sandbox manifest `listen` reads (default `.tollgate/sandbox.json`). */
  manifestPath?: string
  fetch?: (url: string, init: RequestInit) => Promise<Response>
}

const options = {
  name: { type: 'string' },
  merchant: { type: 'string' },
  env: { type: 'string' },
  format: { type: 'string' },
  label: { type: 'string' },
  currency: { type: 'string' },
  amount: { type: 'string' },
  off: { type: 'boolean' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/** Runs one CLI command (`argv` without node and script); returns the process exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>
  >
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options })
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${cliUsage}`)
    return 1
  }
  const { values, positionals } = parsed
  const [group, action, target] = positionals
  if (values.help || !group) {
    io.out(cliUsage)
    return values.help ? 0 : 1
  }
  if (group === 'listen' || group === 'worker') {
    return runLongCommand(group, values, io)
  }
  let database: OpenedDatabase
  try {
    database = await io.openDatabase()
  } catch (error) {
    if (!isAppError(error, 'data_directory_locked')) {
      throw error
    }
    io.err(
      `${error.message}, most likely the sandbox (npm start). Stop the sandbox first, or make the change through the running service's API (sandbox fund: POST /api/v1/sandbox/fund).`,
    )
    return 1
  }
  const deps = { db: database.db, clock: systemClock, ids: createIdGenerator() }
  try {
    const result = await runCommand(deps, [group, action ?? '', target], values)
    io.out(JSON.stringify(result, null, 2))
    if (group === 'keys' && action === 'create') {
      io.err('Store the key now: it is shown only once.')
    }
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${cliUsage}`)
    } else {
      io.err(isAppError(error) ? `${error.code}: ${error.message}` : String(error))
    }
    return 1
  } finally {
    await database.close()
  }
}

type Values = {
  [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean
}
type CliDeps = Parameters<typeof createApiKey>[0]

async function runCommand(
  deps: CliDeps,
  [group, action, target]: [string, string, string | undefined],
  values: Values,
): Promise<unknown> {
  const command = group === 'balances' ? 'balances' : `${group} ${action}`
  switch (command) {
    case 'merchants create':
      return createMerchant(deps, { name: required(values.name, '--name') })
    case 'merchants list':
      return listMerchants(deps)
    case 'merchants verify':
      return verifyMerchant(deps, { merchantId: required(target, 'a merchant id'), verified: !values.off })
    case 'merchants payout-limit': {
      const amount = required(values.amount, '--amount')
      return setPayoutDailyLimit(deps, {
        merchantId: required(target, 'a merchant id'),
        limitUsd: amount === 'default' ? null : amount,
      })
    }
    case 'keys create':
      return createApiKey(deps, {
        merchantId: required(values.merchant, '--merchant'),
        environment: oneOf(values.env, ['test', 'live'], '--env'),
        format: oneOf(values.format ?? 'current', ['current', 'legacy'], '--format'),
        ...(values.label === undefined ? {} : { label: values.label }),
      })
    case 'keys list':
      return listApiKeys(deps, values.merchant === undefined ? {} : { merchantId: values.merchant })
    case 'keys revoke':
      await revokeApiKey(deps, { keyId: required(target, 'a key id') })
      return { id: target, revoked: true }
    case 'balances': {
      const environment = oneOf(values.env ?? 'test', ['test', 'live'], '--env')
      const balances = await getBalances(deps, {
        merchantId: required(values.merchant, '--merchant'),
        environment,
      })
      return balances.map(toBalanceResponse)
    }
    case 'sandbox fund': {
      const currency = oneOf(
        values.currency,
        Object.keys(sandboxCurrencyScales) as SandboxCurrency[],
        '--currency',
      )
      const merchantId = required(values.merchant, '--merchant')
      const balance = await fundBalance(deps, {
        merchantId,
        currency,
        amount: required(values.amount, '--amount'),
      })
      return toBalanceResponse(balance)
    }
    default:
      throw new UsageError(`unknown command: ${command}`)
  }
}

async function runLongCommand(command: 'listen' | 'worker', values: Values, io: CliIo): Promise<number> {
  const signal = io.signal ?? new AbortController().signal
  const stopped = new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve()
    }
    signal.addEventListener('abort', () => resolve())
  })
  try {
    if (command === 'worker') {
      const database = await io.openDatabase()
      try {
        if (database.engine === 'pglite') {
          io.err('worker: on PGlite the sandbox must not be running (one process per data directory)')
        }
        await runWorker({ database, logger: createLogger(), stopped })
      } finally {
        await database.close()
      }
      return 0
    }
    const forwardTo = required(values['forward-to'], '--forward-to')
    const manifestPath = io.manifestPath ?? '.tollgate/sandbox.json'
    const manifest = await readFile(manifestPath, 'utf8').then(
      (text) => JSON.parse(text) as { apiUrl?: string; apiKey?: string },
      () => ({}) as { apiUrl?: string; apiKey?: string },
    )
    if (!manifest.apiUrl || !manifest.apiKey) {
      io.err(`listen: no running sandbox found (${manifestPath}); start it with npm start`)
      return 1
    }
    await forwardEvents({
      apiUrl: manifest.apiUrl,
      apiKey: manifest.apiKey,
      forwardTo,
      events: values.events?.split(',').map((type) => type.trim()),
      signal,
      out: io.out,
      err: io.err,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    })
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${cliUsage}`)
    } else {
      io.err(
        isAppError(error)
          ? `${error.code}: ${error.message}`
          : String(error instanceof Error ? error.message : error),
      )
    }
    return 1
  }
}

class UsageError extends Error {}

function required(value: string | undefined, name: string): string {
  if (!value) {
    throw new UsageError(`${name} is required`)
  }
  return value
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T {
  if (!allowed.includes(value as T)) {
    throw new UsageError(`${name} must be one of ${allowed.join(', ')}`)
  }
  return value as T
}
