import { formatAtomicAmount } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { formatLedgerAmount, isLedgerCurrency } from '../ledger/ledger-currencies.js'
import type { Db } from '../rails/types.js'
import type { Settlement } from './schemas.js'
import { fiatScale } from './session-money.js'
import { computeSettlement, type SessionRow } from './session-settlement.js'

type Scope = { merchantId: string; environment: KeyEnvironment }

/** Filters of GET /settlements. `invoice` settlements do not exist yet, so that entity lists nothing. */
export type SettlementFilters = { entity?: 'session' | 'invoice' | undefined; currency?: string | undefined }

/** A page of the merchant's settlements (sessions closed with funds), most recently settled first. */
export async function listSettlements(
  deps: Pick<Deps, 'db'>,
  input: Scope & SettlementFilters & { page: number; size: number },
): Promise<{ items: Settlement[]; total: number }> {
  if (input.entity === 'invoice') {
    return { items: [], total: 0 }
  }
  let query = settledSessions(deps.db, input)
  if (input.currency !== undefined) {
    query = query.where('settles_in', '=', input.currency)
  }
  const [rows, count] = await Promise.all([
    query
      .selectAll()
      .orderBy('settled_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.size)
      .offset((input.page - 1) * input.size)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { items: rows.flatMap((row) => toSettlement(row) ?? []), total: Number(count.total) }
}

/** The settlement of one session by reference, or undefined when there is none (not settled, not ours). */
export async function getSettlement(
  deps: Pick<Deps, 'db'>,
  input: Scope & { reference: string; entity: 'session' | 'invoice' },
): Promise<Settlement | undefined> {
  if (input.entity === 'invoice') {
    return undefined
  }
  const row = await settledSessions(deps.db, input)
    .selectAll()
    .where('reference', '=', input.reference)
    .executeTakeFirst()
  return row ? toSettlement(row) : undefined
}

function settledSessions(db: Db, scope: Scope) {
  return db
    .selectFrom('payment_sessions')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('settled_at', 'is not', null)
}

/** Renders a settled session as the spec's Settlement. */
export function toSettlement(row: SessionRow): Settlement | undefined {
  const amounts = computeSettlement(row, BigInt(row.amount_confirmed))
  const currency = amounts?.currency
  if (!amounts || currency === undefined || !isLedgerCurrency(currency) || row.asset_decimals === null) {
    return undefined
  }
  const money = (value: bigint) => formatLedgerAmount(value, currency)
  return {
    status: 'completed',
    entity: 'session',
    reference: row.reference,
    balanceReference: row.reference,
    requested: { amount: formatAtomicAmount(BigInt(row.amount), fiatScale), currency: row.currency },
    gross: {
      currency: amounts.currency,
      amount: money(amounts.gross),
      conversionRate: row.settlement_rate ?? '1',
    },
    customerPaid: { amount: formatAtomicAmount(amounts.customerPaid, row.asset_decimals) },
    fees: {
      processing: { amount: money(amounts.processingFee), paidBy: row.fee_payer },
      gas: { amount: money(amounts.gasFee), paidBy: row.fee_payer },
    },
    net: { amount: money(amounts.net) },
  }
}
