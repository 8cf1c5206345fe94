import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment, ResponseFormat } from '../http/app-env.js'
import type { DepositAccountRecord } from './deposit-account.js'
import { findDepositAccount } from './list-deposit-accounts.js'

/** Input of {@link createDepositAccount}; without `customerId` it is the merchant's parent account. */
export type CreateDepositAccountInput = {
  merchantId: string
  environment: KeyEnvironment
  customerId?: string | undefined
  settlementCurrency?: string | undefined
  format: ResponseFormat
}

/**
 * Creates the holder's deposit account, or returns the one it has (one per holder; a repeat call
 * changes nothing). The parent account is always `default`. An unknown customer is `not_found`.
 */
export async function createDepositAccount(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: CreateDepositAccountInput,
): Promise<DepositAccountRecord> {
  const scope = { merchantId: input.merchantId, environment: input.environment }
  const parent = input.customerId === undefined
  if (parent && input.settlementCurrency !== undefined && input.settlementCurrency !== 'default') {
    throw new AppError('validation_error', {
      message: 'The merchant parent account always settles in `default`',
      context: { param: 'settlementCurrency' },
    })
  }
  if (input.customerId !== undefined) {
    const customer = await deps.db
      .selectFrom('customers')
      .select('id')
      .where('merchant_id', '=', input.merchantId)
      .where('environment', '=', input.environment)
      .where('id', '=', input.customerId)
      .executeTakeFirst()
    if (!customer) {
      throw new AppError('not_found', {
        message: `Customer ${input.customerId} not found`,
        context: { param: 'customerId' },
      })
    }
  }
  const now = deps.clock.now()
  // The partial unique indexes (one parent per merchant, one account per customer) make a
  // concurrent second create a no-op; both callers then read the one account.
  await deps.db
    .insertInto('deposit_accounts')
    .values({
      id: deps.ids.create('dacc'),
      ...{ merchant_id: input.merchantId, environment: input.environment },
      customer_id: input.customerId ?? null,
      is_parent: parent,
      settlement_currency: parent ? 'default' : (input.settlementCurrency ?? 'default'),
      status: 'active',
      response_format: input.format,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .execute()
  const found = await findDepositAccount(
    deps.db,
    input.customerId === undefined ? { ...scope, parent: true } : { ...scope, customerId: input.customerId },
  )
  if (!found) {
    throw new AppError('internal_error', { message: 'deposit account vanished after its creation' })
  }
  return found
}

/**
 * Changes a customer account's settlement currency (deposits already recorded keep theirs). The
 * parent account cannot be changed (`validation_error`); another merchant's account is `not_found`.
 */
export async function updateDepositAccount(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string; settlementCurrency: string },
): Promise<DepositAccountRecord> {
  const scope = { merchantId: input.merchantId, environment: input.environment }
  const current = await findDepositAccount(deps.db, { ...scope, id: input.id })
  if (!current) {
    throw new AppError('not_found', {
      message: `Deposit account ${input.id} not found`,
      context: { param: 'id' },
    })
  }
  if (current.account.is_parent) {
    throw new AppError('validation_error', {
      message: 'The merchant parent account always settles in `default` and cannot be changed',
      context: { param: 'settlementCurrency' },
    })
  }
  await deps.db
    .updateTable('deposit_accounts')
    .set({ settlement_currency: input.settlementCurrency, updated_at: deps.clock.now() })
    .where('id', '=', current.account.id)
    .execute()
  return { ...current, account: { ...current.account, settlement_currency: input.settlementCurrency } }
}
