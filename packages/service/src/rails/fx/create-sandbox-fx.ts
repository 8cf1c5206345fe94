import { AppError } from '@tollgate/core'
import { inTransaction } from '../../db/in-transaction.js'
import type { Deps } from '../../deps.js'
import type { Db, FxRate, FxRates, SandboxFxRateInput } from '../types.js'
import { convertAmount } from './convert-amount.js'
import { type FxMid, quoteFxRate } from './quote-fx-rate.js'
import { divideRational, parseRational, type Rational } from './rational.js'
import { fxCurrencies, isFxCurrency, sandboxFxTable } from './sandbox-fx-table.js'

/** The sandbox FX rates plus the setter behind PUT /sandbox/fx-rates. */
export type SandboxFx = FxRates & { setRates(rates: SandboxFxRateInput[]): Promise<FxRate[]> }

const one: Rational = { numerator: 1n, denominator: 1n }
const maxSpreadBps = 1000

const builtInMids: ReadonlyMap<string, FxMid> = new Map(
  sandboxFxTable.map((entry) => {
    const rate = parseRational(entry.rate)
    const usdValue = entry.quote === 'in_usd' ? rate : divideRational(one, rate)
    return [entry.currency, { usdValue, spreadBps: entry.spreadBps }]
  }),
)

/**
 * FX rates of the sandbox: the built-in table ({@link sandboxFxTable}) overridden per currency by the
 * rates set through PUT /sandbox/fx-rates, which live in `sandbox_fx_rates` (shared by every process,
 * kept across restarts). See docs/rails-fiat.md "FX rates".
 */
export function createSandboxFx(deps: Pick<Deps, 'db' | 'clock'>): SandboxFx {
  const loadMids = async (db: Db = deps.db): Promise<Map<string, FxMid>> => {
    const mids = new Map(builtInMids)
    const rows = await db.selectFrom('sandbox_fx_rates').selectAll().execute()
    for (const row of rows) {
      mids.set(row.currency, {
        usdValue: { numerator: BigInt(row.usd_numerator), denominator: BigInt(row.usd_denominator) },
        spreadBps: row.spread_bps,
      })
    }
    return mids
  }
  const quote = (mids: Map<string, FxMid>, from: string, to: string, at: Date): FxRate => {
    const fromMid = mids.get(from)
    const toMid = mids.get(to)
    if (!fromMid || !toMid) {
      const unknown = fromMid ? to : from
      throw new AppError('validation_error', {
        message: `${unknown} is not a currency of the FX table (${fxCurrencies.join(', ')})`,
        context: { param: fromMid ? 'toCurrency' : 'fromCurrency' },
      })
    }
    return { from, to, rate: quoteFxRate(fromMid, toMid, from === to), at }
  }
  return {
    getRate: async (from, to, options) => quote(await loadMids(options?.db), from, to, deps.clock.now()),
    listRates: async () => {
      const mids = await loadMids()
      const at = deps.clock.now()
      return fxCurrencies.flatMap((from) =>
        fxCurrencies.filter((to) => to !== from).map((to) => quote(mids, from, to, at)),
      )
    },
    convert: (input) => convertAmount(input),
    setRates: async (rates) => {
      const updates = rates.map(toUpdate)
      const now = deps.clock.now()
      const current = await loadMids()
      await inTransaction(deps.db, async (trx) => {
        for (const update of updates) {
          const spreadBps = update.spreadBps ?? current.get(update.currency)?.spreadBps ?? 0
          const values = {
            usd_numerator: update.usdValue.numerator,
            usd_denominator: update.usdValue.denominator,
            spread_bps: spreadBps,
            updated_at: now,
          }
          await trx
            .insertInto('sandbox_fx_rates')
            .values({ currency: update.currency, ...values })
            .onConflict((oc) => oc.column('currency').doUpdateSet(values))
            .execute()
        }
      })
      const mids = await loadMids()
      return updates.flatMap((u) => [
        quote(mids, 'USD', u.currency, now),
        quote(mids, u.currency, 'USD', now),
      ])
    },
  }
}

function toUpdate(input: SandboxFxRateInput): { currency: string; usdValue: Rational; spreadBps?: number } {
  const invalid = (message: string, param: string) =>
    new AppError('validation_error', { message, context: { param } })
  if ((input.from === 'USD') === (input.to === 'USD')) {
    throw invalid('a rate is set against USD: exactly one of from and to must be USD', 'from')
  }
  const currency = input.from === 'USD' ? input.to : input.from
  if (!isFxCurrency(currency)) {
    throw invalid(`${currency} is not a currency of the FX table`, input.from === 'USD' ? 'to' : 'from')
  }
  const rate = parseRational(input.rate)
  if (rate.numerator === 0n) {
    throw invalid('rate must be greater than zero', 'rate')
  }
  const spread = input.spreadBps
  if (spread !== undefined && (!Number.isInteger(spread) || spread < 0 || spread > maxSpreadBps)) {
    throw invalid(`spreadBps must be an integer in 0..${maxSpreadBps}`, 'spreadBps')
  }
  const usdValue = input.to === 'USD' ? rate : divideRational(one, rate)
  return { currency, usdValue, ...(spread === undefined ? {} : { spreadBps: spread }) }
}
