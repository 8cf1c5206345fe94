import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import { createRails, type RailsOptions } from '../rails/create-rails.js'
import type { AddressPurpose, Db, IncomingTransfer, IncomingTransferHandler, Rails } from '../rails/types.js'

// Fixed sandbox-like rates (target units per source unit), used until the FX rail lands on main.
const usdRates: Record<string, string> = {
  USDC: '1',
  USDT: '1',
  ETH: '0.00033333',
  SOL: '0.00666666',
  BNB: '0.00166666',
  NGN: '1500',
}

/** The fake rails of session tests, plus a way to deliver incoming transfers to the subscribers. */
export type FakeSessionRails = Rails & {
  deliver(db: Db, transfer: IncomingTransfer): Promise<void>
  handlers: Map<AddressPurpose, IncomingTransferHandler[]>
}

/**
 * Rails for session tests: the real chain registry, deposit addresses and screening of `createRails`
 * (no node: nothing is watched), a fixed FX table so amounts can be checked to the last unit, and a
 * `deliver` that hands a synthetic incoming transfer to the subscribers inside the caller's transaction.
 */
export function createFakeSessionRails(
  base: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: Pick<RailsOptions, 'addressIndexBlockSize'> = {},
): FakeSessionRails {
  const rails = createRails(base, options)
  const handlers = new Map<AddressPurpose, IncomingTransferHandler[]>()
  return {
    ...rails,
    handlers,
    incoming: {
      ...rails.incoming,
      subscribe: (purpose, handler) => {
        handlers.set(purpose, [...(handlers.get(purpose) ?? []), handler])
        return () =>
          handlers.set(
            purpose,
            (handlers.get(purpose) ?? []).filter((h) => h !== handler),
          )
      },
    },
    fx: {
      ...rails.fx,
      getRate: async (from, to) => ({ from, to, rate: getRate(from, to), at: base.clock.now() }),
      listRates: async () => [],
    },
    deliver: async (db, transfer) => {
      for (const handler of handlers.get(transfer.address.purpose) ?? []) {
        await handler(db, transfer)
      }
    },
  }
}

function getRate(from: string, to: string): string {
  if (from === to) {
    return '1'
  }
  const fromUsd = from === 'USD' ? '1' : usdRates[from]
  const toUsd = to === 'USD' ? '1' : usdRates[to]
  if (fromUsd === undefined || toUsd === undefined) {
    throw new AppError('validation_error', { message: `no rate ${from}/${to}` })
  }
  // target per source = (target per USD) / (source per USD), to 8 decimals, rounded down.
  const scale = 10n ** 16n
  const ratio = (toFixed(toUsd) * scale) / toFixed(fromUsd)
  const whole = ratio / 10n ** 16n
  const fraction = ((ratio % 10n ** 16n) / 10n ** 8n).toString().padStart(8, '0')
  return `${whole}.${fraction}`
}

function toFixed(value: string): bigint {
  const [whole, fraction = ''] = value.split('.') as [string, string?]
  return BigInt(whole + fraction.padEnd(8, '0'))
}
