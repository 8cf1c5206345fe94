import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { type ChainRailsOptions, createChainRails } from '../rails/chains/create-chain-rails.js'
import { convertAmount } from '../rails/fx/convert-amount.js'
import { type FxMid, quoteFxRate } from '../rails/fx/quote-fx-rate.js'
import { parseRational } from '../rails/fx/rational.js'
import type { FxRate, Rails } from '../rails/types.js'

// Stablecoins at par with the dollar, no spread; other currencies only at the configured USD prices.
const par: FxMid = { usdValue: { numerator: 1n, denominator: 1n }, spreadBps: 0 }
const parCurrencies = ['USD', 'USDC', 'USDT']

/** Options of {@link createProductionRails}: the chain rails' and the configured FX prices. */
export type ProductionRailsOptions = ChainRailsOptions & {
  /** USD value of one unit per currency (`{ ETH: "3000" }`), with the house spread in basis points. */
  fx?: { usdPrices?: Record<string, string>; spreadBps?: number }
}

function unavailable(what: string): never {
  throw new AppError('provider_unavailable', {
    message: `no ${what} provider is configured on this server (docs/production.md)`,
  })
}

/**
 * The rails of `tollgate serve`: the real chain rails against the configured RPC URLs, and no fiat
 * provider. Bank, mobile-money, virtual-account and screening calls throw `provider_unavailable`
 * (503); FX quotes USD, USDC and USDT at par and the currencies of `fx.usdPrices` (no price feed),
 * any other pair is a 503. No sandbox controls, so no sandbox route works.
 */
export function createProductionRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: ProductionRailsOptions,
): Rails {
  const chain = createChainRails(deps, options)
  const mids = new Map<string, FxMid>(parCurrencies.map((currency) => [currency, par]))
  for (const [currency, price] of Object.entries(options.fx?.usdPrices ?? {})) {
    mids.set(currency, { usdValue: parseRational(price), spreadBps: options.fx?.spreadBps ?? 0 })
  }
  const rate = (from: string, to: string): FxRate => {
    const fromMid = mids.get(from)
    const toMid = mids.get(to)
    if (!fromMid || !toMid) {
      unavailable(`FX rate (${from} → ${to})`)
    }
    return { from, to, rate: quoteFxRate(fromMid, toMid, from === to), at: deps.clock.now() }
  }
  return {
    chains: chain.chains,
    addresses: chain.addresses,
    incoming: chain.incoming,
    crypto: chain.crypto,
    banks: {
      listBanks: () => [],
      resolveAccount: async () => unavailable('bank'),
      transfer: async () => unavailable('bank'),
      getTransfer: async () => unavailable('bank'),
      onTransferUpdate: () => () => {},
    },
    mobileMoney: {
      listInstitutions: () => [],
      resolveAccount: async () => unavailable('mobile-money'),
      transfer: async () => unavailable('mobile-money'),
      getTransfer: async () => unavailable('mobile-money'),
      onTransferUpdate: () => () => {},
    },
    virtualAccounts: {
      create: async () => unavailable('virtual-account'),
      onInboundTransfer: () => () => {},
    },
    fx: {
      getRate: async (from, to) => rate(from, to),
      listRates: async () =>
        parCurrencies.flatMap((from) =>
          parCurrencies.filter((to) => to !== from).map((to) => rate(from, to)),
        ),
      convert: (input) => convertAmount(input),
    },
    screening: { screen: async () => unavailable('AML screening') },
    start: () => chain.start(),
    stop: () => chain.stop(),
  }
}
