import { AppError } from '@tollgate/core'
import { upsertCustomer } from '../customers/upsert-customer.js'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { isLedgerCurrency } from '../ledger/ledger-currencies.js'
import { toFieldError } from './assert-session-input.js'
import { findSessionByReference, toSessionViews } from './load-payment-session.js'
import { lockSessionAddress } from './lock-session-address.js'
import { quoteSessionPayment } from './quote-session-payment.js'
import type { CreateSessionAddressBody } from './schemas.js'
import type { SessionRow } from './session-settlement.js'
import type { SessionView } from './to-session-response.js'

/** Input of {@link createSessionAddress}. */
export type CreateSessionAddressInput = {
  merchantId: string
  environment: KeyEnvironment
  reference: string
  body: CreateSessionAddressBody
}

/**
 * Gives an open session its deposit address and locks the rate. The asset and chain already on the
 * session cannot be changed; a missing one must be given. Repeating the call returns the same address.
 */
export async function createSessionAddress(
  deps: Deps,
  input: CreateSessionAddressInput,
): Promise<SessionView> {
  const scope = { merchantId: input.merchantId, environment: input.environment, reference: input.reference }
  const current = await findSessionByReference(deps.db, scope)
  const { asset, chain } = pickAssetChain(current, input.body)
  assertOpen(deps, current)
  if (current.address !== null) {
    return (await toSessionViews(deps.db, [current]))[0] as SessionView
  }
  const quote = await quoteSessionPayment(deps, {
    environment: input.environment,
    amount: BigInt(current.amount),
    currency: current.currency,
    chain,
    asset,
    feePayer: current.fee_payer,
    settlementCurrency:
      current.settlement_currency && isLedgerCurrency(current.settlement_currency)
        ? current.settlement_currency
        : null,
  })
  return inTransaction(deps.db, async (trx) => {
    let row = await findSessionByReference(trx, { ...scope, forUpdate: true })
    assertOpen(deps, row)
    if (row.address === null) {
      let customerId = row.customer_id
      if (customerId === null && input.body.customer) {
        const customer = await upsertCustomer(trx, deps, {
          merchantId: input.merchantId,
          environment: input.environment,
          details: input.body.customer,
        })
        customerId = customer.id
      }
      row = await lockSessionAddress(trx, deps, { row, quote, customerId })
    }
    return (await toSessionViews(trx, [row]))[0] as SessionView
  })
}

function pickAssetChain(row: SessionRow, body: CreateSessionAddressBody): { asset: string; chain: string } {
  const asset = body.asset?.toUpperCase()
  if (row.asset !== null && asset !== undefined && asset !== row.asset) {
    throw toFieldError('asset', `the session's asset is ${row.asset} and cannot be changed`)
  }
  if (row.chain !== null && body.chain !== undefined && body.chain !== row.chain) {
    throw toFieldError('chain', `the session's chain is ${row.chain} and cannot be changed`)
  }
  const pickedAsset = row.asset ?? asset
  const pickedChain = row.chain ?? body.chain
  if (pickedAsset === undefined) {
    throw toFieldError('asset', 'required: the session has no asset yet')
  }
  if (pickedChain === undefined) {
    throw toFieldError('chain', 'required: the session has no chain yet')
  }
  return { asset: pickedAsset, chain: pickedChain }
}

function assertOpen(deps: Pick<Deps, 'clock'>, row: SessionRow): void {
  if (row.state !== 'open' || row.expires_at <= deps.clock.now()) {
    throw new AppError('invalid_session_state', {
      message: `Payment session ${row.reference} is ${row.state === 'open' ? 'expired' : 'closed'}`,
      context: { param: 'reference' },
    })
  }
}
