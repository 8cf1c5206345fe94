import type { Deps } from '../deps.js'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import { type CurrencyBalance, getBalances } from '../ledger/get-balances.js'
import { ledgerCurrencies, parseLedgerAmount } from '../ledger/ledger-currencies.js'
import { postTransaction } from '../ledger/post-transaction.js'

/** Decimals of the currencies the sandbox can fund. */
export const sandboxCurrencyScales = {
  USDT: ledgerCurrencies.USDT,
  USDC: ledgerCurrencies.USDC,
  NGN: ledgerCurrencies.NGN,
} as const

/** A currency the sandbox can fund. */
export type SandboxCurrency = keyof typeof sandboxCurrencyScales

/** Amounts the sandbox merchant receives at first start (decimal strings). */
export const sandboxFunding = { USDT: '10000', USDC: '10000', NGN: '1000000' } as const

/**
 * Credits a merchant's test balance with `amount` (decimal string) through the ledger: a transfer
 * from `sandbox:funding` with source `sandbox_funding`. Returns the balance afterwards.
 */
export async function fundBalance(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { merchantId: string; currency: SandboxCurrency; amount: string; idempotencyKey?: string },
): Promise<CurrencyBalance> {
  await postTransaction(deps, {
    environment: 'test',
    idempotencyKey: input.idempotencyKey ?? deps.ids.create('sandbox_fund'),
    legs: [
      {
        debit: 'sandbox:funding',
        credit: merchantAccount(input.merchantId),
        amount: parseLedgerAmount(input.amount, input.currency),
        currency: input.currency,
      },
    ],
    source: 'sandbox_funding',
    description: 'Sandbox funding',
  })
  const balances = await getBalances(deps, { merchantId: input.merchantId, environment: 'test' })
  const balance = balances.find((b) => b.currency === input.currency)
  if (!balance) {
    throw new Error(`no ${input.currency} balance after funding`)
  }
  return balance
}

/**
 * Funds the sandbox merchant's test balances with {@link sandboxFunding}, once: the ledger
 * idempotency keys are fixed per merchant and currency, so a second call changes nothing.
 */
export async function fundSandboxMerchant(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { merchantId: string },
): Promise<void> {
  for (const [currency, amount] of Object.entries(sandboxFunding) as [SandboxCurrency, string][]) {
    await fundBalance(deps, {
      merchantId: input.merchantId,
      currency,
      amount,
      idempotencyKey: `sandbox_start:${input.merchantId}:${currency}`,
    })
  }
}
