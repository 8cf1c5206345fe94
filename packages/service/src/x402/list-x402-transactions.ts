import { formatAtomicAmount } from '@tollgate/core'
import type { Selectable } from 'kysely'
import type { X402TransactionsTable } from '../db/schema/x402.js'
import { selectPage } from '../db/select-page.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { X402Transaction } from './schemas.js'

type Row = Selectable<X402TransactionsTable>
type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of GET /x402/transactions (docs/x402-merchant.md). */
export type X402TransactionFilters = {
  search?: string | undefined
  status?: string | undefined
  chain?: string | undefined
  asset?: string | undefined
  startDate?: Date | undefined
  endDate?: Date | undefined
}

/** A page of the merchant's x402 transactions, newest first, and how many match. */
export async function listX402Transactions(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: Scope & X402TransactionFilters & { page: number; size: number },
): Promise<{ items: X402Transaction[]; total: number }> {
  let query = deps.db
    .selectFrom('x402_transactions')
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  for (const [column, value] of [
    ['status', input.status],
    ['chain', input.chain],
    ['asset', input.asset],
  ] as const) {
    if (value !== undefined) {
      query = query.where(column, '=', value)
    }
  }
  const { search } = input
  if (search !== undefined) {
    // A hash or an address: exact on the hash, case-insensitive on EVM addresses.
    query = query.where((eb) =>
      eb.or([
        eb('tx_hash', '=', search),
        eb(eb.fn('lower', ['payer']), '=', search.toLowerCase()),
        eb(eb.fn('lower', ['pay_to']), '=', search.toLowerCase()),
      ]),
    )
  }
  const { rows, total } = await selectPage(query, { ...input, orderBy: 'seq' })
  return { items: rows.map((row) => toX402Transaction(deps, row)), total }
}

/** One of the merchant's x402 transactions by hash (the newest, if the hash exists on two networks). */
export async function getX402Transaction(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: Scope & { txHash?: string; id?: string },
): Promise<X402Transaction | undefined> {
  let query = deps.db
    .selectFrom('x402_transactions')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
  query =
    input.id === undefined
      ? query.where('tx_hash', '=', input.txHash ?? '')
      : query.where('id', '=', input.id)
  const row = await query.orderBy('seq', 'desc').executeTakeFirst()
  return row && toX402Transaction(deps, row)
}

/** Renders a stored x402 transaction row as the spec's resource. */
export function toX402Transaction(deps: Pick<Deps, 'rails'>, row: Row): X402Transaction {
  const entry = deps.rails.chains.getByNetwork(row.environment, row.network)
  const decimals = entry?.assets.find((a) => a.symbol === row.asset)?.decimals ?? 0
  return {
    id: row.id,
    txHash: row.tx_hash,
    status: row.status,
    amlCheck: row.aml_check,
    errorReason: row.error_reason,
    network: row.network,
    chain: row.chain,
    asset: row.asset,
    resource: row.resource,
    description: row.description,
    payer: row.payer,
    payTo: row.pay_to,
    amount: formatAtomicAmount(BigInt(row.amount), decimals),
    fee: formatAtomicAmount(BigInt(row.fee), decimals),
    blockNumber: row.block_number === null ? null : Number(row.block_number),
    explorerUrl: entry?.explorerTxUrl(row.tx_hash) ?? '',
    createdAt: row.created_at.toISOString(),
  }
}
