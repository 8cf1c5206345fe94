import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { ChainName } from '../reference/chains.js'
import type { DepositAccountRecord } from './deposit-account.js'
import { findDepositAccount } from './list-deposit-accounts.js'

/** Input of {@link addDepositIdentity}: a static address on `chain`, or an NGN virtual account for `bvn`. */
export type AddDepositIdentityInput = {
  merchantId: string
  environment: KeyEnvironment
  depositAccountId: string
} & ({ type: 'static_deposit_address'; chain: ChainName } | { type: 'ngn_virtual_account'; bvn: string })

/**
 * Gives a deposit account a static deposit address on a chain (rails `addresses.allocate`, purpose
 * `deposit`) or an NGN virtual account (rails `virtualAccounts.create`). One per chain and one
 * virtual account per account: a repeat call returns the account unchanged.
 */
export async function addDepositIdentity(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'rails'>,
  input: AddDepositIdentityInput,
): Promise<DepositAccountRecord> {
  const scope = { merchantId: input.merchantId, environment: input.environment }
  const record = await findDepositAccount(deps.db, { ...scope, id: input.depositAccountId })
  if (!record) {
    throw new AppError('not_found', {
      message: `Deposit account ${input.depositAccountId} not found`,
      context: { param: 'id' },
    })
  }
  const existing = record.identities.find((i) =>
    input.type === 'static_deposit_address'
      ? i.type === input.type && i.chain === input.chain
      : i.type === input.type && i.currency === 'NGN',
  )
  if (existing) {
    return record
  }
  const id = deps.ids.create('dpi')
  const base = { id, deposit_account_id: record.account.id, environment: input.environment }
  const now = deps.clock.now()
  if (input.type === 'static_deposit_address') {
    if (!deps.rails.chains.get(input.environment, input.chain)) {
      throw new AppError('unknown_asset', {
        message: `Chain ${input.chain} has no deposit addresses in ${input.environment}`,
        context: { network: input.chain, asset: '*' },
      })
    }
    const address = await deps.rails.addresses.allocate(deps.db, {
      ...scope,
      chain: input.chain,
      purpose: 'deposit',
      ownerId: record.account.id,
    })
    await deps.db
      .insertInto('deposit_account_identities')
      .values({
        ...base,
        type: input.type,
        chain: input.chain,
        address: address.address,
        address_id: address.id,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute()
  } else {
    // The provider's idempotency key is the identity id; the holder's name is the account name.
    const account = await deps.rails.virtualAccounts.create({
      id,
      bvn: input.bvn,
      accountName: await getAccountName(deps, record),
      // Owner tags: the sandbox route that simulates inbound transfers checks them.
      merchantId: input.merchantId,
      environment: input.environment,
    })
    await deps.db
      .insertInto('deposit_account_identities')
      .values({
        ...base,
        type: input.type,
        currency: account.currency,
        account_number: account.accountNumber,
        account_name: account.accountName,
        bank_name: account.bankName,
        bank_code: account.bankCode,
        account_reference: account.accountReference,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .execute()
  }
  return (await findDepositAccount(deps.db, { ...scope, id: record.account.id })) ?? record
}

// The customer's name (or e-mail); on the parent account the merchant's business name.
async function getAccountName(deps: Pick<Deps, 'db'>, record: DepositAccountRecord): Promise<string> {
  const c = record.customer
  const name = [c?.first_name, c?.last_name].filter(Boolean).join(' ') || c?.email
  if (name) {
    return name.slice(0, 100)
  }
  const merchant = await deps.db
    .selectFrom('merchants')
    .select(['name', 'business_name'])
    .where('id', '=', record.account.merchant_id)
    .executeTakeFirstOrThrow()
  return (merchant.business_name ?? merchant.name).slice(0, 100)
}
