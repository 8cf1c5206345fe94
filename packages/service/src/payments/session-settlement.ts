import type { Selectable } from 'kysely'
import type { PaymentSessionsTable } from '../db/schema/payment-sessions.js'
import { toSettlementAmount } from './quote-session-payment.js'

/** A payment session row as read from the database. */
export type SessionRow = Selectable<PaymentSessionsTable>

/** A session's settlement in minor units of its settlement currency (and what the customer paid, in the asset). */
export type SettlementAmounts = {
  currency: string
  customerPaid: bigint
  gross: bigint
  processingFee: bigint
  gasFee: bigint
  net: bigint
}

/**
 * The settlement of `basis` atomic units of the session's asset: gross at the locked settlement rate,
 * minus the locked processing and network fees, which never exceed gross (the network fee is cut first).
 */
export function computeSettlement(row: SessionRow, basis: bigint): SettlementAmounts | null {
  if (row.settles_in === null || row.settlement_rate === null || row.asset_decimals === null) {
    return null
  }
  const locked = {
    decimals: row.asset_decimals,
    settlesIn: row.settles_in,
    settlementRate: row.settlement_rate,
  }
  const gross = toSettlementAmount(basis, locked)
  const wantedProcessing = basis === 0n ? 0n : toSettlementAmount(BigInt(row.processing_fee ?? 0), locked)
  const wantedGas = basis === 0n ? 0n : toSettlementAmount(BigInt(row.gas_fee ?? 0), locked)
  const processingFee = wantedProcessing < gross ? wantedProcessing : gross
  const gasLeft = gross - processingFee
  const gasFee = wantedGas < gasLeft ? wantedGas : gasLeft
  return {
    currency: row.settles_in,
    customerPaid: basis,
    gross,
    processingFee,
    gasFee,
    net: gross - processingFee - gasFee,
  }
}

/** The crypto a session's settlement is computed on: what was confirmed once closed, else what is asked. */
export function getSettlementBasis(row: SessionRow): bigint {
  return row.state === 'closed' ? BigInt(row.amount_confirmed) : BigInt(row.crypto_amount ?? 0)
}
