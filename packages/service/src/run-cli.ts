import { readFile } from 'node:fs/promises'
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
import type { SecretKeyring } from './secrets/secret-keyring.js'
import { forwardEvents } from './webhooks/forward-events.js'

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
  /** The keys of stored secrets `worker --sandbox` signs webhooks with (`loadSecretKeyring`); required by it. */
  secretKeyring?: () => Promise<SecretKeyring>
  /** The sandbox's PGlite data directory: `worker --sandbox` reads the master seed beside it. */
  dataDir?: string
}

/** An admin command (`merchants create`, `keys list`, `balances`, …) with its parsed arguments. */
export type AdminCommand =
  | { command: 'merchants create'; name: string }
  | { command: 'merchants list' }
  | { command: 'merchants verify'; merchantId: string; off?: boolean }
  | { command: 'merchants payout-limit'; merchantId: string; amount: string }
  | { command: 'keys create'; merchant: string; env: string; format?: string; label?: string }
  | { command: 'keys list'; merchant?: string }
  | { command: 'keys revoke'; keyId: string }
  | { command: 'balances'; merchant: string; env?: string }
  | { command: 'sandbox fund'; merchant: string; currency: string; amount: string }

/**
 * Runs one admin command against the database (the `tollgate merchants|keys|balances|sandbox`
 * commands parse their arguments and call this); prints the JSON result, returns the exit code.
 */
export async function runAdminCommand(command: AdminCommand, io: CliIo): Promise<number> {
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
    const result = await runCommand(deps, command)
    io.out(JSON.stringify(result, null, 2))
    if (command.command === 'keys create') {
      io.err('Store the key now: it is shown only once.')
    }
    return 0
  } catch (error) {
    io.err(describeError(error))
    return 1
  } finally {
    await database.close()
  }
}

type CliDeps = Parameters<typeof createApiKey>[0]

async function runCommand(deps: CliDeps, input: AdminCommand): Promise<unknown> {
  switch (input.command) {
    case 'merchants create':
      return createMerchant(deps, { name: required(input.name, '--name') })
    case 'merchants list':
      return listMerchants(deps)
    case 'merchants verify':
      return verifyMerchant(deps, { merchantId: input.merchantId, verified: !input.off })
    case 'merchants payout-limit':
      return setPayoutDailyLimit(deps, {
        merchantId: input.merchantId,
        limitUsd: input.amount === 'default' ? null : input.amount,
      })
    case 'keys create':
      return createApiKey(deps, {
        merchantId: required(input.merchant, '--merchant'),
        environment: oneOf(input.env, ['test', 'live'], '--env'),
        format: oneOf(input.format ?? 'current', ['current', 'legacy'], '--format'),
        ...(input.label === undefined ? {} : { label: input.label }),
      })
    case 'keys list':
      return listApiKeys(deps, input.merchant === undefined ? {} : { merchantId: input.merchant })
    case 'keys revoke':
      await revokeApiKey(deps, { keyId: input.keyId })
      return { id: input.keyId, revoked: true }
    case 'balances': {
      const environment = oneOf(input.env ?? 'test', ['test', 'live'], '--env')
      const balances = await getBalances(deps, {
        merchantId: required(input.merchant, '--merchant'),
        environment,
      })
      return balances.map(toBalanceResponse)
    }
    case 'sandbox fund': {
      const currency = oneOf(
        input.currency,
        Object.keys(sandboxCurrencyScales) as SandboxCurrency[],
        '--currency',
      )
      const balance = await fundBalance(deps, {
        merchantId: required(input.merchant, '--merchant'),
        currency,
        amount: input.amount,
      })
      return toBalanceResponse(balance)
    }
  }
}

/**
 * Forwards the running sandbox's webhook events to `forwardTo` until `io.signal` aborts
 * (`tollgate listen`); reads the sandbox manifest, needs no database; returns the exit code.
 */
export async function runListenCommand(
  input: { forwardTo: string; events?: string | undefined },
  io: CliIo,
): Promise<number> {
  try {
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
      forwardTo: input.forwardTo,
      events: input.events?.split(',').map((type) => type.trim()),
      signal: io.signal ?? new AbortController().signal,
      out: io.out,
      err: io.err,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    })
    return 0
  } catch (error) {
    io.err(describeError(error))
    return 1
  }
}

function describeError(error: unknown): string {
  if (isAppError(error)) {
    return `${error.code}: ${error.message}`
  }
  return error instanceof Error ? error.message : String(error)
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
