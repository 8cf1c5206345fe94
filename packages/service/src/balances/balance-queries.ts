// TEMPORARY: bound to the ledger's exported functions once ledger/ lands.
import type { z } from '@hono/zod-openapi'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { Balance, BalanceTransaction } from './schemas.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** The merchant's balances, one per currency. */
export async function listBalances(
  _deps: Pick<Deps, 'db'>,
  _scope: Scope,
): Promise<z.infer<typeof Balance>[]> {
  return []
}

/** A page of the merchant's balance transactions matching the filters, and the total. */
export async function listBalanceTransactions(
  _deps: Pick<Deps, 'db'>,
  _input: Scope & { page: number; size: number },
): Promise<{ items: z.infer<typeof BalanceTransaction>[]; total: number }> {
  return { items: [], total: 0 }
}

/** One of the merchant's balance transactions, or `undefined`. */
export async function getBalanceTransaction(
  _deps: Pick<Deps, 'db'>,
  _input: Scope & { id: string },
): Promise<z.infer<typeof BalanceTransaction> | undefined> {
  return undefined
}
