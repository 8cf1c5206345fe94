import { AppError } from '@tollgate/core'
import { type LedgerCurrency, ledgerCurrencies } from '../ledger/ledger-currencies.js'
import type { PayoutFeeTable } from './payout-settings.js'

const feePattern = /^(0|[1-9]\d*)(\.\d+)?$/

/** The rail of a payout and what its fee is looked up by. */
export type FeeLookup =
  | { kind: 'local_fiat'; currency: LedgerCurrency }
  | { kind: 'cross_border'; currency: LedgerCurrency; sourceCurrency: LedgerCurrency }
  | { kind: 'crypto'; asset: LedgerCurrency; chain: string }

/**
 * The flat fee of a payout in minor units of the balance currency it is charged in (the payout's
 * currency; the source stablecoin for cross-border), or undefined when the table has no such rail.
 */
export function findPayoutFee(fees: PayoutFeeTable, lookup: FeeLookup): bigint | undefined {
  switch (lookup.kind) {
    case 'local_fiat':
      return toMinor(fees.fiat[lookup.currency]?.BankTransfer, lookup.currency)
    case 'cross_border':
      return toMinor(fees.crossBorder[lookup.currency]?.MobileMoney, lookup.sourceCurrency)
    case 'crypto':
      return toMinor(fees.crypto[lookup.asset]?.[lookup.chain], lookup.asset)
  }
}

function toMinor(value: string | undefined, currency: LedgerCurrency): bigint | undefined {
  if (value === undefined) {
    return undefined
  }
  const scale = ledgerCurrencies[currency]
  const [whole = '', fraction = ''] = value.split('.')
  if (!feePattern.test(value) || fraction.length > scale) {
    throw new AppError('internal_error', { message: `payout fee "${value}" is not a ${currency} amount` })
  }
  return BigInt(whole + fraction.padEnd(scale, '0'))
}
