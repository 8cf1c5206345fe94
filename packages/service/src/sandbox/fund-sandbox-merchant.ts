// TEMPORARY: bound to the ledger's fundMerchant once ledger/ lands.
import type { z } from '@hono/zod-openapi'
import type { Balance } from '../balances/schemas.js'
import type { Deps } from '../deps.js'

/** Decimals of the currencies the sandbox can fund. */
export const sandboxCurrencyScales = { USDT: 6, USDC: 6, NGN: 2 } as const

/** Amounts the sandbox merchant receives at first start (decimal strings). */
export const sandboxFunding = { USDT: '10000', USDC: '10000', NGN: '1000000' } as const

/** Credits a merchant's test balance through the ledger and returns the new balance. */
export async function fundBalance(
  _deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { merchantId: string; currency: keyof typeof sandboxCurrencyScales; amount: string },
): Promise<z.infer<typeof Balance>> {
  return { currency: input.currency, available: input.amount, pending: '0', total: input.amount }
}

/** Funds the sandbox merchant's test balances with {@link sandboxFunding}. */
export async function fundSandboxMerchant(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { merchantId: string },
): Promise<void> {
  for (const [currency, amount] of Object.entries(sandboxFunding) as [
    keyof typeof sandboxFunding,
    string,
  ][]) {
    await fundBalance(deps, { merchantId: input.merchantId, currency, amount })
  }
}
