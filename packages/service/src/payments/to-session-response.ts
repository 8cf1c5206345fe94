import { formatAtomicAmount } from '@tollgate/core'
import type { Selectable } from 'kysely'
import { type CustomerRow, toCustomerResponse } from '../customers/customer.js'
import type { PaymentSessionTransactionsTable } from '../db/schema/payment-sessions.js'
import type { Deps } from '../deps.js'
import type { ResponseFormat } from '../http/app-env.js'
import { formatLedgerAmount, isLedgerCurrency } from '../ledger/ledger-currencies.js'
import type { ChainName } from '../reference/chains.js'
import type { BlockchainTransaction, LegacyPaymentSession, PaymentSession } from './schemas.js'
import { fiatScale } from './session-money.js'
import { computeSettlement, getSettlementBasis, type SessionRow } from './session-settlement.js'

/** A blockchain transaction row of a session. */
export type SessionTransactionRow = Selectable<PaymentSessionTransactionsTable>

/** What a session response is built from: the row, its customer and (when asked) its transactions. */
export type SessionView = {
  row: SessionRow
  customer: CustomerRow | null
  transactions?: SessionTransactionRow[] | undefined
}

type ViewDeps = Pick<Deps, 'settings' | 'rails'>

/** Renders a session in the response format of the caller's key (see docs/sessions.md "Legacy format"). */
export function toSessionResponse(
  deps: ViewDeps,
  view: SessionView,
  format: ResponseFormat,
): PaymentSession | LegacyPaymentSession {
  return format === 'legacy' ? toLegacySessionResponse(deps, view) : toCurrentSessionResponse(deps, view)
}

/** Renders a session in the current format (release 2.0.0 and later). */
export function toCurrentSessionResponse(deps: ViewDeps, view: SessionView): PaymentSession {
  const parts = toParts(deps, view)
  return {
    ...parts.common,
    state: view.row.state,
    amount: parts.amount,
    amountPaid: parts.amountPaid,
    currency: view.row.currency,
    settlements: {
      currency: parts.settlement.currency,
      customerPaid: { amount: parts.settlement.customerPaid },
      gross: { amount: parts.settlement.gross, conversionRate: view.row.settlement_rate },
      fees: parts.settlement.fees,
      net: { amount: parts.settlement.net },
    },
    payment: { status: view.row.payment_status, ...parts.payment },
    ...parts.transactions,
  }
}

/** Renders a session in the legacy format: `status` for `state`, amounts nested under `amount`. */
export function toLegacySessionResponse(deps: ViewDeps, view: SessionView): LegacyPaymentSession {
  const parts = toParts(deps, view)
  // Legacy keys have no `underpaid`: before 2.0.0 a terminal underpayment was reported as partial.
  const status = view.row.payment_status === 'underpaid' ? 'partial' : view.row.payment_status
  return {
    ...parts.common,
    status,
    amount: {
      value: parts.amount,
      currency: view.row.currency,
      paid: parts.amountPaid,
      customerPaid: { amount: parts.settlement.customerPaid },
      gross: {
        amount: parts.settlement.gross,
        currency: parts.settlement.currency,
        conversionRate: view.row.settlement_rate,
      },
      fees: parts.settlement.fees,
      net: { amount: parts.settlement.net, currency: parts.settlement.currency },
    },
    payment: parts.payment,
    ...parts.transactions,
  }
}

/** Renders a session's blockchain transaction (spec "Blockchain transaction"). */
export function toTransactionResponse(
  deps: Pick<Deps, 'rails'>,
  row: SessionTransactionRow,
): BlockchainTransaction {
  return {
    id: row.id,
    sessionId: row.session_id,
    txHash: row.tx_hash,
    status: row.status,
    chain: row.chain,
    asset: row.asset,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    amount: formatAtomicAmount(BigInt(row.amount), row.decimals),
    confirmations: String(row.confirmations),
    amlCheck: row.aml_check,
    failureReason: row.failure_reason,
    explorerUrl: getExplorerUrl(deps, row),
    confirmedAt: row.confirmed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

function getExplorerUrl(deps: Pick<Deps, 'rails'>, row: SessionTransactionRow): string | null {
  const chain = deps.rails.chains.get(row.environment, row.chain as ChainName)
  return chain ? chain.explorerTxUrl(row.tx_hash) : null
}

function toParts(deps: ViewDeps, view: SessionView) {
  const { row } = view
  const decimals = row.asset_decimals
  const crypto = (value: bigint | string | null) =>
    value === null || decimals === null ? null : formatAtomicAmount(BigInt(value), decimals)
  const cryptoAmount = row.crypto_amount === null ? null : BigInt(row.crypto_amount)
  const confirmed = BigInt(row.amount_confirmed)
  const fiat = BigInt(row.amount)
  const paidFiat = cryptoAmount === null || cryptoAmount === 0n ? 0n : (confirmed * fiat) / cryptoAmount
  const overpaid = cryptoAmount !== null && confirmed > cryptoAmount ? confirmed - cryptoAmount : 0n
  const amounts = computeSettlement(row, getSettlementBasis(row))
  const money = (value: bigint | undefined) =>
    value === undefined || !amounts || !isLedgerCurrency(amounts.currency)
      ? null
      : formatLedgerAmount(value, amounts.currency)
  const paidBy = row.fee_payer
  return {
    amount: formatAtomicAmount(fiat, fiatScale),
    amountPaid: formatAtomicAmount(paidFiat, fiatScale),
    common: {
      id: row.id,
      reference: row.reference,
      title: row.title,
      description: row.description ?? '',
      type: row.type,
      url: `${deps.settings.publicBaseUrl}/checkout/${row.reference}`,
      cancelUrl: row.cancel_url,
      successUrl: row.success_url,
      customer: view.customer ? toCustomerResponse(view.customer) : null,
      metadata: row.metadata,
      invoiceId: row.invoice_id,
      refundStatus: row.refund_status,
      isRefunded: row.is_refunded,
      isUnderpaymentAccepted: row.is_underpayment_accepted,
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
      completedAt: row.completed_at?.toISOString() ?? null,
    },
    settlement: {
      currency: amounts?.currency ?? row.settlement_currency,
      customerPaid: amounts ? crypto(amounts.customerPaid) : null,
      gross: money(amounts?.gross),
      net: money(amounts?.net),
      fees: {
        processing: { amount: money(amounts?.processingFee), paidBy },
        gas: { amount: money(amounts?.gasFee), paidBy },
      },
    },
    payment: {
      asset: row.asset,
      chain: row.chain,
      amount: crypto(row.crypto_amount),
      amountReceived: decimals === null ? '0' : formatAtomicAmount(BigInt(row.amount_seen), decimals),
      overpaidAmount: decimals === null ? '0' : formatAtomicAmount(overpaid, decimals),
      address: row.address,
      gasFee: crypto(row.gas_fee),
      feePaidBy: paidBy,
      conversionRate: row.conversion_rate,
      txHash: row.tx_hash,
    },
    transactions:
      view.transactions === undefined
        ? {}
        : { transactions: view.transactions.map((t) => toTransactionResponse(deps, t)) },
  }
}
