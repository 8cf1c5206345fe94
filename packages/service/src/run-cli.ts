import { parseArgs } from 'node:util'
import { isAppError } from '@tollgate/core'
import { createApiKey } from './auth/create-api-key.js'
import { listApiKeys } from './auth/list-api-keys.js'
import { revokeApiKey } from './auth/revoke-api-key.js'
import { toBalanceResponse } from './balances/to-balance-response.js'
import type { OpenedDatabase } from './db/open-database.js'
import { createIdGenerator, systemClock } from './deps.js'
import { getBalances } from './ledger/get-balances.js'
import { createMerchant } from './merchants/create-merchant.js'
import { listMerchants } from './merchants/list-merchants.js'
import { setPayoutDailyLimit, verifyMerchant } from './merchants/verify-merchant.js'
import { fundBalance, type SandboxCurrency, sandboxCurrencyScales } from './sandbox/fund-sandbox-merchant.js'

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
Database: DATABASE_URL, else the PGlite directory TOLLGATE_DATA_DIR (default .tollgate/data).
With PGlite, stop the sandbox first: one process at a time may open the data directory (a second
one is refused, naming the process that holds it).`

/** What the CLI talks to: the database opener and two output lines sinks (JSON results, messages). */
export type CliIo = {
  openDatabase: () => Promise<OpenedDatabase>
  out: (text: string) => void
  err: (text: string) => void
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
