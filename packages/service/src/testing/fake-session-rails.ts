import { randomBytes } from 'node:crypto'
import { base58 } from '@scure/base'
import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { createRails } from '../rails/create-rails.js'
import type {
  AddressPurpose,
  ChainAsset,
  ChainEntry,
  Db,
  DepositAddress,
  IncomingTransfer,
  IncomingTransferHandler,
  Rails,
} from '../rails/types.js'
import { type ChainName, chainTable } from '../reference/chains.js'

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
 * Rails for session tests while the real chain and FX rails are being built: the reference chain
 * table as registry, in-memory deposit addresses, a fixed FX table and a screening that fails
 * addresses starting with `0xbad`. Everything else is the scaffold of `createRails`.
 */
export function createFakeSessionRails(
  base: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
): FakeSessionRails {
  const rails = createRails(base)
  const entries = chainTable.map(toEntry)
  const addresses = new Map<string, DepositAddress>()
  const handlers = new Map<AddressPurpose, IncomingTransferHandler[]>()
  const list = (_environment: KeyEnvironment) => entries
  return {
    ...rails,
    handlers,
    chains: {
      list,
      get: (_environment, chain) => entries.find((e) => e.chain === chain),
      getByNetwork: (_environment, network) => entries.find((e) => e.network === network),
      findAsset: (_environment, chain, symbol) =>
        entries.find((e) => e.chain === chain)?.assets.find((a) => a.symbol === symbol),
      isValidAddress: () => true,
    },
    addresses: {
      allocate: async (_db, input) => {
        const key = `${input.purpose}:${input.ownerId}:${input.chain}`
        const existing = addresses.get(key)
        if (existing) {
          return existing
        }
        const entry = entries.find((e) => e.chain === input.chain)
        const address: DepositAddress = {
          id: base.ids.create('addr'),
          ...input,
          network: entry?.network ?? input.chain,
          address:
            entry?.family === 'solana'
              ? base58.encode(randomBytes(32))
              : `0x${randomBytes(20).toString('hex')}`,
          createdAt: base.clock.now(),
        }
        addresses.set(key, address)
        return address
      },
      find: async (_db, input) => [...addresses.values()].find((a) => a.address === input.address),
    },
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
      getRate: async (from, to) => ({ from, to, rate: getRate(from, to), at: base.clock.now() }),
      listRates: async () => [],
      convert: () => {
        throw new AppError('internal_error', { message: 'fake FX has no convert' })
      },
    },
    screening: {
      screen: async ({ address }) => (address.toLowerCase().startsWith('0xbad') ? 'failed' : 'passed'),
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

function toEntry(info: (typeof chainTable)[number]): ChainEntry {
  const tokens: ChainAsset[] = info.tokens.map((token) => ({
    symbol: token.symbol,
    kind: info.chain === 'solana' ? 'spl' : info.chain === 'tron' ? 'trc20' : 'erc20',
    address: token.address,
    decimals: token.decimals,
    ledgerCurrency: token.symbol === 'USDC' || token.symbol === 'USDT' ? token.symbol : null,
  }))
  const family = familyOf(info.chain)
  return {
    chain: info.chain,
    network: info.networkId,
    family,
    assets: [
      {
        symbol: info.native.symbol,
        kind: 'native',
        address: null,
        decimals: info.native.decimals,
        ledgerCurrency: null,
      },
      ...tokens,
    ],
    confirmations: info.confirmations.test,
    hasNode: false,
    explorerTxUrl: (txHash) => `https://explorer.invalid/${info.chain}/tx/${txHash}`,
  }
}

function familyOf(chain: ChainName): ChainEntry['family'] {
  if (chain === 'solana' || chain === 'bitcoin' || chain === 'tron' || chain === 'dogecoin') {
    return chain
  }
  return 'evm'
}
