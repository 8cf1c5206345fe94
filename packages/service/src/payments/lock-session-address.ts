import type { Deps } from '../deps.js'
import type { Db } from '../rails/types.js'
import type { SessionQuote } from './quote-session-payment.js'
import type { SessionRow } from './session-settlement.js'

/**
 * Allocates the session's deposit address in `db` (the caller's transaction) and locks the quote on
 * the row: asset, chain, FX rate, fees, crypto amount and the settlement currency and rate.
 */
export async function lockSessionAddress(
  db: Db,
  deps: Pick<Deps, 'rails' | 'clock'>,
  input: { row: SessionRow; quote: SessionQuote; customerId: string | null },
): Promise<SessionRow> {
  const { row, quote } = input
  const address = await deps.rails.addresses.allocate(db, {
    merchantId: row.merchant_id,
    environment: row.environment,
    chain: quote.chain.chain,
    purpose: 'session',
    ownerId: row.id,
  })
  const now = deps.clock.now()
  return db
    .updateTable('payment_sessions')
    .set({
      asset: quote.asset.symbol,
      chain: quote.chain.chain,
      network: quote.chain.network,
      asset_decimals: quote.asset.decimals,
      customer_id: input.customerId,
      address: address.address,
      address_id: address.id,
      conversion_rate: quote.rate,
      base_amount: quote.baseAmount,
      processing_fee: quote.processingFee,
      gas_fee: quote.gasFee,
      crypto_amount: quote.cryptoAmount,
      settles_in: quote.settlesIn,
      settlement_rate: quote.settlementRate,
      rate_locked_at: now,
      updated_at: now,
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow()
}
