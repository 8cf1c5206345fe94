import { AppError, isAppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { isLedgerCurrency, type LedgerCurrency, ledgerCurrencies } from '../ledger/ledger-currencies.js'
import type { ChainAsset, ChainEntry } from '../rails/types.js'
import { chainTable } from '../reference/chains.js'
import { applyBasisPoints, convertAtRate, fiatScale } from './session-money.js'

/** Who pays the processing and network fees of a session. */
export type FeePayer = 'merchant' | 'customer'

/** A session's price in one asset on one chain (all amounts in the asset's atomic units). */
export type SessionQuote = {
  chain: ChainEntry
  asset: ChainAsset
  /** Asset units per fiat unit (FX rate with the house spread). */
  rate: string
  /** The fiat amount in the asset, rounded up. */
  baseAmount: bigint
  processingFee: bigint
  gasFee: bigint
  /** What the customer must send: base plus fees when the customer pays them. */
  cryptoAmount: bigint
  feePayer: FeePayer
  /** The ledger currency the payment settles into, and settlement units per asset unit. */
  settlesIn: LedgerCurrency
  settlementRate: string
}

/** Input of {@link quoteSessionPayment}: `amount` in fiat minor units. */
export type QuoteSessionPaymentInput = {
  environment: KeyEnvironment
  amount: bigint
  currency: string
  chain: string
  asset: string
  feePayer: FeePayer
  settlementCurrency: LedgerCurrency | null
}

/** The registry's chain and asset, or 400 `unsupported_asset_chain`. */
export function resolveAssetChain(
  deps: Pick<Deps, 'rails'>,
  input: { environment: KeyEnvironment; chain: string; asset: string },
): { chain: ChainEntry; asset: ChainAsset } {
  const chain = deps.rails.chains.list(input.environment).find((entry) => entry.chain === input.chain)
  const asset = chain?.assets.find((a) => a.symbol === input.asset.toUpperCase())
  if (!chain || !asset) {
    throw new AppError('unsupported_asset_chain', {
      message: `${input.asset} on ${input.chain} is not supported`,
      context: { param: chain ? 'asset' : 'chain' },
    })
  }
  return { chain, asset }
}

/**
 * Prices a fiat amount in an asset on a chain: FX rate (rounded up so the merchant is paid in full),
 * the processing fee (basis points, half-up) and the network fee of the chain converted to the asset;
 * see docs/sessions.md "Amounts and fees".
 */
export async function quoteSessionPayment(
  deps: Pick<Deps, 'rails' | 'settings'>,
  input: QuoteSessionPaymentInput,
): Promise<SessionQuote> {
  const { chain, asset } = resolveAssetChain(deps, input)
  const rate = await getRate(deps, input.currency, asset.symbol)
  const baseAmount = convertAtRate({
    amount: input.amount,
    fromScale: fiatScale,
    toScale: asset.decimals,
    rate,
    rounding: 'up',
  })
  const processingFee = applyBasisPoints(baseAmount, deps.settings.sessions.processingFeeBps)
  const gasFee = await getGasFee(deps, chain, asset)
  const settlesIn = input.settlementCurrency ?? asset.ledgerCurrency ?? 'USDT'
  const settlementRate =
    settlesIn === asset.ledgerCurrency ? '1' : await getRate(deps, asset.symbol, settlesIn)
  return {
    chain,
    asset,
    rate,
    baseAmount,
    processingFee,
    gasFee,
    cryptoAmount: input.feePayer === 'customer' ? baseAmount + processingFee + gasFee : baseAmount,
    feePayer: input.feePayer,
    settlesIn,
    settlementRate,
  }
}

/** Converts asset atomic units into minor units of the settlement currency at the locked rate (down). */
export function toSettlementAmount(
  amount: bigint,
  input: { decimals: number; settlesIn: string; settlementRate: string },
): bigint {
  if (!isLedgerCurrency(input.settlesIn)) {
    throw new AppError('internal_error', { message: `${input.settlesIn} is not a ledger currency` })
  }
  return convertAtRate({
    amount,
    fromScale: input.decimals,
    toScale: ledgerCurrencies[input.settlesIn],
    rate: input.settlementRate,
    rounding: 'down',
  })
}

// The chain's static network fee (native coin) for this asset, converted into the asset, rounded up.
async function getGasFee(deps: Pick<Deps, 'rails'>, chain: ChainEntry, asset: ChainAsset): Promise<bigint> {
  const info = chainTable.find((c) => c.chain === chain.chain)
  const fee = info?.staticFees[asset.symbol.toLowerCase()]
  if (!info || fee === undefined) {
    return 0n
  }
  const native = chain.assets.find((a) => a.kind === 'native') ?? {
    symbol: info.native.symbol,
    decimals: info.native.decimals,
  }
  const nativeAmount = convertAtRate({
    amount: 1n,
    fromScale: 0,
    toScale: native.decimals,
    rate: fee,
    rounding: 'up',
  })
  if (asset.symbol === native.symbol) {
    return nativeAmount
  }
  const rate = await getRate(deps, native.symbol, asset.symbol)
  return convertAtRate({
    amount: nativeAmount,
    fromScale: native.decimals,
    toScale: asset.decimals,
    rate,
    rounding: 'up',
  })
}

// An FX pair the rails do not quote is a combination we cannot price: 400, not 500.
async function getRate(deps: Pick<Deps, 'rails'>, from: string, to: string): Promise<string> {
  if (from === to) {
    return '1'
  }
  try {
    return (await deps.rails.fx.getRate(from, to)).rate
  } catch (error) {
    if (isAppError(error) && error.code !== 'internal_error' && error.code !== 'provider_unavailable') {
      throw new AppError('unsupported_asset_chain', {
        message: `No exchange rate from ${from} to ${to}`,
        context: { param: 'asset' },
        cause: error,
      })
    }
    throw error
  }
}
