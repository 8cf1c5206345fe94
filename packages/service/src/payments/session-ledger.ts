import type { Deps } from '../deps.js'
import { type AccountCode, custodyAccount, merchantAccount } from '../ledger/chart-of-accounts.js'
import { isLedgerCurrency, type LedgerCurrency, ledgerCurrencies } from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import type { ChainName } from '../reference/chains.js'
import { toSettlementAmount } from './quote-session-payment.js'
import { rescale } from './session-money.js'
import type { SessionRow } from './session-settlement.js'

/**
 * The ledger legs that credit `amount` atomic units of the session's asset to `to` (the merchant, or
 * suspense for funds that reached a closed session) in the settlement currency. Same currency: one leg
 * from custody. Another currency: custody → platform:fx in the asset's currency, then platform:fx → `to`
 * at the locked rate. A coin the ledger has no currency for (ETH, SOL) enters through platform:fx only.
 */
export function toSessionCreditLegs(
  deps: Pick<Deps, 'rails'>,
  row: SessionRow,
  input: { amount: bigint; to: 'merchant' | 'suspense' },
): { legs: LedgerLeg[]; currency: LedgerCurrency; amount: bigint } {
  const settlesIn = row.settles_in ?? 'USDT'
  const currency: LedgerCurrency = isLedgerCurrency(settlesIn) ? settlesIn : 'USDT'
  const decimals = row.asset_decimals ?? 0
  const amount = toSettlementAmount(input.amount, {
    decimals,
    settlesIn: currency,
    settlementRate: row.settlement_rate ?? '1',
  })
  const credit: AccountCode = input.to === 'merchant' ? merchantAccount(row.merchant_id) : 'suspense'
  const asset = deps.rails.chains.findAsset(row.environment, row.chain as ChainName, row.asset ?? '')
  const custody = custodyAccount(row.chain ?? 'unknown', row.asset ?? 'unknown')
  const paid = asset?.ledgerCurrency ?? null
  const legs: LedgerLeg[] = []
  if (paid === currency) {
    legs.push({ debit: custody, credit, amount, currency })
  } else {
    if (paid !== null) {
      const paidAmount = rescale(input.amount, decimals, ledgerCurrencies[paid])
      legs.push({ debit: custody, credit: 'platform:fx', amount: paidAmount, currency: paid })
    }
    legs.push({ debit: 'platform:fx', credit, amount, currency })
  }
  return { legs: legs.filter((leg) => leg.amount > 0n), currency, amount }
}

/** The legs of a correction: every leg of `legs` reversed, last first. */
export function toReversalLegs(legs: LedgerLeg[]): LedgerLeg[] {
  return legs.map((leg) => ({ ...leg, debit: leg.credit, credit: leg.debit })).reverse()
}
