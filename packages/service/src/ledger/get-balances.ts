import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type AccountBalance, toAccountBalance, toAccountCounters } from './account-balance.js'
import { type AccountCode, hotAccountCodes, isHotAccountCode, merchantAccount } from './chart-of-accounts.js'
import type { LedgerCurrency } from './ledger-currencies.js'

/** A merchant's balance in one currency, in minor units. */
export type CurrencyBalance = AccountBalance & { currency: LedgerCurrency }

/** A merchant's balances in one environment, one per currency it has an account in, by currency. */
export async function getBalances(
  deps: Pick<Deps, 'db'>,
  input: { merchantId: string; environment: KeyEnvironment },
): Promise<CurrencyBalance[]> {
  const rows = await deps.db
    .selectFrom('ledger_accounts')
    .select(['currency', 'debits_pending', 'debits_posted', 'credits_pending', 'credits_posted'])
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('code', '=', merchantAccount(input.merchantId))
    .orderBy('currency')
    .execute()
  return rows.map((row) => ({
    currency: row.currency as LedgerCurrency,
    ...toAccountBalance(toAccountCounters(row)),
  }))
}

/**
 * The balance of any ledger account (zero when it does not exist yet), in minor units. For a hot
 * account (`platform:fees`, `platform:fx`) it is the balance of the sum of its shards' counters.
 */
export async function getAccountBalance(
  deps: Pick<Deps, 'db'>,
  input: { environment: KeyEnvironment; code: AccountCode; currency: LedgerCurrency },
): Promise<AccountBalance> {
  const codes = isHotAccountCode(input.code) ? hotAccountCodes(input.code) : [input.code]
  const rows = await deps.db
    .selectFrom('ledger_accounts')
    .select(['debits_pending', 'debits_posted', 'credits_pending', 'credits_posted'])
    .where('environment', '=', input.environment)
    .where('code', 'in', codes)
    .where('currency', '=', input.currency)
    .execute()
  const zero = { debitsPending: 0n, debitsPosted: 0n, creditsPending: 0n, creditsPosted: 0n }
  return toAccountBalance(
    rows.map(toAccountCounters).reduce(
      (sum, c) => ({
        debitsPending: sum.debitsPending + c.debitsPending,
        debitsPosted: sum.debitsPosted + c.debitsPosted,
        creditsPending: sum.creditsPending + c.creditsPending,
        creditsPosted: sum.creditsPosted + c.creditsPosted,
      }),
      zero,
    ),
  )
}
