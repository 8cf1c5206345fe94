import { AppError } from '@tollgate/core'
import type { ChainEntry, DepositAddress, Rails } from '../rails/types.js'
import { type ChainName, chainNames } from '../reference/chains.js'

/**
 * In-test stand-ins for the chain and virtual-account rails a deposit consumer needs while those
 * rails are built elsewhere: every spec chain exists (12 confirmations), addresses are derived from
 * the owner, virtual accounts from the id. Replace with `createRails` parts once they land.
 */
export function createTestDepositRails(): Pick<Rails, 'chains' | 'addresses' | 'virtualAccounts'> {
  const addresses = new Map<string, DepositAddress>()
  const entry = (environment: string, chain: ChainName): ChainEntry => ({
    chain,
    network: `test:${environment}:${chain}`,
    family: 'evm',
    assets: [
      { symbol: 'USDC', kind: 'erc20', address: '0xusdc', decimals: 6, ledgerCurrency: 'USDC' },
      { symbol: 'USDT', kind: 'erc20', address: '0xusdt', decimals: 18, ledgerCurrency: 'USDT' },
      { symbol: 'ETH', kind: 'native', address: null, decimals: 18, ledgerCurrency: null },
    ],
    confirmations: 12,
    hasNode: false,
    explorerTxUrl: (hash) => `https://explorer.test/tx/${hash}`,
  })
  return {
    chains: {
      list: (environment) => chainNames.map((c) => entry(environment, c)),
      get: (environment, chain) => (chain === 'dogecoin' ? undefined : entry(environment, chain)),
      getByNetwork: () => undefined,
      findAsset: (environment, chain, symbol) =>
        entry(environment, chain).assets.find((a) => a.symbol === symbol),
      isValidAddress: () => true,
    },
    addresses: {
      allocate: async (_db, input) => {
        const key = `${input.purpose}:${input.ownerId}:${input.chain}`
        const existing = addresses.get(key)
        if (existing) {
          return existing
        }
        const address: DepositAddress = {
          id: `addr_${addresses.size + 1}`,
          ...input,
          network: `test:${input.environment}:${input.chain}`,
          address: `0x${Buffer.from(key).toString('hex').slice(0, 40).padEnd(40, '0')}`,
          createdAt: new Date(),
        }
        addresses.set(key, address)
        return address
      },
      find: async (_db, input) =>
        [...addresses.values()].find((a) => a.address === input.address && a.chain === input.chain),
    },
    virtualAccounts: {
      create: async (input) => {
        if (!/^\d{11}$/.test(input.bvn)) {
          throw new AppError('validation_error', {
            message: 'bvn must be 11 digits',
            context: { param: 'bvn' },
          })
        }
        const digits = [...input.id].reduce((n, ch) => (n * 31 + ch.charCodeAt(0)) % 1e10, 7)
        return {
          currency: 'NGN',
          accountNumber: String(digits).padStart(10, '0'),
          accountName: input.accountName,
          bankName: 'Wema Bank',
          bankCode: '035',
          accountReference: input.id,
        }
      },
      onInboundTransfer: () => () => undefined,
    },
  }
}
