import type { Deps } from '../deps.js'
import type { AccountCode } from '../ledger/chart-of-accounts.js'
import { merchantAccount } from '../ledger/chart-of-accounts.js'
import {
  formatLedgerAmount,
  isLedgerCurrency,
  type LedgerCurrency,
  ledgerCurrencies,
} from '../ledger/ledger-currencies.js'
import type { LedgerLeg } from '../ledger/ledger-types.js'
import type { Db } from '../rails/types.js'

/** What a deposit brings in: `amount` atomic units of `asset` at `decimals`, held in account `from`. */
export type DepositSource = {
  /** Where the money is held (`custody:{chain}:{asset}`, `bank:…`). */
  from: AccountCode
  asset: string
  /** The ledger currency the asset is one-to-one with (USDC, USDT, NGN), or null (ETH, SOL…). */
  ledgerCurrency: LedgerCurrency | null
  amount: bigint
  decimals: number
}

/** How a deposit is credited: currency, gross, fee, net (minor units), conversion and ledger legs. */
export type DepositCredit = {
  currency: LedgerCurrency
  amount: bigint
  fee: bigint
  netAmount: bigint
  /** The spec's Conversion, or null when the deposit credits its own currency. */
  conversion: {
    fromCurrency: string
    toCurrency: string
    sourceAmount: string
    targetAmount: string
    rate: string
  } | null
  legs: LedgerLeg[]
}

/** Currencies a deposit credits as themselves under the `default` settlement rule. */
const selfCrediting = new Set<string>(['USDT', 'USDC', 'NGN'])

/** The balance currency a deposit of `ledgerCurrency` credits under `settlementCurrency` (spec rules). */
export function toSettlementCurrency(
  settlementCurrency: string,
  ledgerCurrency: LedgerCurrency | null,
): LedgerCurrency {
  if (settlementCurrency === 'default') {
    return ledgerCurrency !== null && selfCrediting.has(ledgerCurrency) ? ledgerCurrency : 'USDT'
  }
  return isLedgerCurrency(settlementCurrency) ? settlementCurrency : 'USDT'
}

/**
 * Plans a deposit's credit: converts at the FX rail's rate (rounded down) when the settlement
 * currency differs, takes the fee (`settings.deposits.feeBps`, half-up, once) and builds the legs:
 * source → merchant (net) and source → platform:fees (fee), through platform:fx when a ledger
 * currency converts. `beneficiary` replaces the merchant and waives the fee (suspense for a failed
 * AML check).
 */
export async function planDepositCredit(
  deps: Pick<Deps, 'rails' | 'settings'>,
  input: {
    merchantId: string
    settlementCurrency: string
    source: DepositSource
    beneficiary?: AccountCode
    /** The caller's transaction (the rails' recording transaction): FX reads join it. */
    db: Db
  },
): Promise<DepositCredit> {
  const { source } = input
  const currency = toSettlementCurrency(input.settlementCurrency, source.ledgerCurrency)
  const scale = ledgerCurrencies[currency]
  const to = input.beneficiary ?? merchantAccount(input.merchantId)
  let amount: bigint
  let conversion: DepositCredit['conversion'] = null
  const legs: LedgerLeg[] = []
  // Where the credited-currency money comes from: the source itself, or platform:fx after a swap leg.
  let payer: AccountCode = source.from
  if (source.ledgerCurrency === currency) {
    amount = rescale(source.amount, source.decimals, scale)
  } else {
    const fromCurrency = source.ledgerCurrency ?? source.asset
    const fromScale =
      source.ledgerCurrency === null ? source.decimals : ledgerCurrencies[source.ledgerCurrency]
    const sourceAmount =
      source.ledgerCurrency === null ? source.amount : rescale(source.amount, source.decimals, fromScale)
    const { rate } = await deps.rails.fx.getRate(fromCurrency, currency, { db: input.db })
    amount = deps.rails.fx.convert({ amount: sourceAmount, fromScale, toScale: scale, rate })
    conversion = {
      fromCurrency,
      toCurrency: currency,
      sourceAmount: formatUnits(sourceAmount, fromScale),
      targetAmount: formatLedgerAmount(amount, currency),
      rate,
    }
    if (source.ledgerCurrency !== null && sourceAmount > 0n) {
      legs.push({
        debit: source.from,
        credit: 'platform:fx',
        amount: sourceAmount,
        currency: source.ledgerCurrency,
      })
      payer = 'platform:fx'
    }
  }
  // Funds held back (suspense) carry no fee: they are not the merchant's yet.
  const feeBps = input.beneficiary === undefined ? deps.settings.deposits.feeBps : 0
  const fee = (amount * BigInt(feeBps) + 5_000n) / 10_000n
  const netAmount = amount - fee
  if (netAmount > 0n) {
    legs.push({ debit: payer, credit: to, amount: netAmount, currency })
  }
  if (fee > 0n) {
    legs.push({ debit: payer, credit: 'platform:fees', amount: fee, currency })
  }
  return { currency, amount, fee, netAmount, conversion, legs }
}

/** Moves `amount` from `fromDecimals` to `toDecimals` places, rounding down. */
function rescale(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  return fromDecimals >= toDecimals
    ? amount / 10n ** BigInt(fromDecimals - toDecimals)
    : amount * 10n ** BigInt(toDecimals - fromDecimals)
}

/** Formats atomic units at `decimals` places as a decimal string with all places. */
export function formatUnits(amount: bigint, decimals: number): string {
  const digits = amount.toString().padStart(decimals + 1, '0')
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}
