import { AppError } from '@tollgate/core'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import type { Deps } from '../deps.js'
import { createRails } from '../rails/create-rails.js'
import type {
  ChainAsset,
  ChainEntry,
  CryptoSend,
  CryptoSendHandler,
  FiatTransfer,
  FiatTransferHandler,
  Rails,
} from '../rails/types.js'
import type { ChainName } from '../reference/chains.js'

/**
 * In-test rails for payouts and recipients until the real sandbox rails land: chains with address
 * checks, a bank and a mobile-money provider whose outcome is steered by the account number's last
 * four digits (`0000` fails, `1111` stays processing until {@link FakePayoutRails.deliverFiat},
 * `2222` times out after accepting), fixed FX rates, and a crypto sender that confirms on demand.
 */
export type FakePayoutRails = Rails & {
  /** Holder names the bank's name enquiry answers, by account number. */
  accountNames: Map<string, string>
  /** How many times each transfer or send id reached the provider. */
  calls: Map<string, number>
  /** Crypto sends: `confirm` (default) answers confirmed at once, `pending` waits for settleCrypto. */
  cryptoMode: { value: 'confirm' | 'pending' | 'fail' }
  deliverFiat(db: Kysely<Database>, transfer: FiatTransfer): Promise<void>
  settleCrypto(db: Kysely<Database>, idempotencyKey: string, status: 'confirmed' | 'failed'): Promise<void>
}

const fakeRates: Record<string, string> = {
  'USDT/KES': '129.34567891',
  'USDC/KES': '129.30000000',
  'USDT/GHS': '15.12345678',
  'USDC/GHS': '15.10000000',
  'NGN/USDT': '0.00065000',
}

const usdc = (decimals = 6): ChainAsset => ({
  symbol: 'USDC',
  kind: 'erc20',
  address: '0x0000000000000000000000000000000000000001',
  decimals,
  ledgerCurrency: 'USDC',
})

const chains: ChainEntry[] = [
  { chain: 'base', family: 'evm', assets: [usdc()] },
  {
    chain: 'ethereum',
    family: 'evm',
    assets: [usdc(), { ...usdc(), symbol: 'USDT', ledgerCurrency: 'USDT' }],
  },
  { chain: 'bsc', family: 'evm', assets: [{ ...usdc(18), symbol: 'USDT', ledgerCurrency: 'USDT' }] },
  { chain: 'solana', family: 'solana', assets: [{ ...usdc(), kind: 'spl' }] },
].map((entry) => ({
  ...(entry as Pick<ChainEntry, 'chain' | 'family' | 'assets'>),
  network: `test:${entry.chain}`,
  confirmations: 1,
  hasNode: false,
  explorerTxUrl: (hash: string) => `https://explorer.test/${hash}`,
}))

/** Builds {@link FakePayoutRails} on top of the scaffold rails. */
export function createFakePayoutRails(base: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>): FakePayoutRails {
  const rails = createRails(base)
  const accountNames = new Map<string, string>()
  const calls = new Map<string, number>()
  const transfers = new Map<string, FiatTransfer>()
  const sends = new Map<string, CryptoSend>()
  const fiatHandlers = new Set<FiatTransferHandler>()
  const cryptoHandlers = new Set<CryptoSendHandler>()
  const cryptoMode: FakePayoutRails['cryptoMode'] = { value: 'confirm' }
  const count = (id: string) => calls.set(id, (calls.get(id) ?? 0) + 1)

  const transfer = async (input: {
    id: string
    account: { accountNumber: string }
  }): Promise<FiatTransfer> => {
    const existing = transfers.get(input.id)
    if (existing) {
      return existing
    }
    count(input.id)
    const suffix = input.account.accountNumber.slice(-4)
    const result: FiatTransfer = {
      id: input.id,
      providerReference: `prov_${input.id}`,
      status: suffix === '0000' ? 'failed' : suffix === '1111' ? 'processing' : 'success',
      failureReason: suffix === '0000' ? 'Beneficiary account is closed' : null,
    }
    transfers.set(input.id, result)
    if (suffix === '2222') {
      throw new AppError('provider_unavailable', { message: 'The bank did not answer in time' })
    }
    return result
  }
  const getTransfer = async (id: string): Promise<FiatTransfer> => {
    const found = transfers.get(id)
    if (!found) {
      throw new AppError('not_found', { message: `transfer ${id} not found` })
    }
    return found
  }
  const onTransferUpdate = (handler: FiatTransferHandler) => {
    fiatHandlers.add(handler)
    return () => fiatHandlers.delete(handler)
  }

  return {
    ...rails,
    accountNames,
    calls,
    cryptoMode,
    chains: {
      list: () => chains,
      get: (_environment, chain) => chains.find((entry) => entry.chain === chain),
      getByNetwork: (_environment, network) => chains.find((entry) => entry.network === network),
      findAsset: (_environment, chain, symbol) =>
        chains.find((entry) => entry.chain === chain)?.assets.find((asset) => asset.symbol === symbol),
      isValidAddress: (chain: ChainName, address: string) =>
        chain === 'solana'
          ? /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)
          : /^0x[0-9a-fA-F]{40}$/.test(address),
    },
    banks: {
      listBanks: () => [],
      resolveAccount: async ({ accountNumber, bankCode }) => {
        const accountName = accountNames.get(accountNumber)
        if (!accountName) {
          throw new AppError('recipient_not_found', {
            message: `No account ${accountNumber} at bank ${bankCode}`,
          })
        }
        return { accountNumber, accountName, bankCode, bankName: `Bank ${bankCode}` }
      },
      transfer,
      getTransfer,
      onTransferUpdate,
    },
    mobileMoney: {
      listInstitutions: () => [],
      resolveAccount: async (input) => {
        const digits = input.phoneNumber.replace(/\D/g, '')
        const currency = digits.startsWith('254') ? 'KES' : digits.startsWith('233') ? 'GHS' : undefined
        if (!currency) {
          throw new AppError('validation_error', {
            message: `${input.phoneNumber} is not a KES or GHS number`,
          })
        }
        return {
          currency,
          countryIsoCode: currency === 'KES' ? 'KE' : 'GH',
          accountNumber: `+${digits}`,
          accountName: input.accountName,
          institutionCode: input.institutionCode,
          institutionName: input.institutionCode === 'MPESA' ? 'M-Pesa' : 'MTN Mobile Money',
          accountType: input.accountType ?? 'mobile_money',
        }
      },
      transfer,
      getTransfer,
      onTransferUpdate,
    },
    fx: {
      getRate: async (from, to) => {
        const rate = fakeRates[`${from}/${to}`]
        if (!rate) {
          throw new AppError('provider_unavailable', { message: `no rate ${from}/${to}` })
        }
        return { from, to, rate, at: base.clock.now() }
      },
      listRates: async () => [],
      convert: ({ amount, fromScale, toScale, rate }) => {
        const [whole = '', fraction = ''] = rate.split('.')
        return (
          (amount * BigInt(whole + fraction) * 10n ** BigInt(toScale)) /
          10n ** BigInt(fromScale + fraction.length)
        )
      },
    },
    crypto: {
      send: async (input) => {
        const existing = sends.get(input.idempotencyKey)
        if (existing) {
          return existing
        }
        count(input.idempotencyKey)
        const now = base.clock.now()
        const mode = cryptoMode.value
        const send: CryptoSend = {
          id: `send_${input.idempotencyKey}`,
          ...input,
          status: mode === 'confirm' ? 'confirmed' : mode === 'fail' ? 'failed' : 'pending',
          txHash: `0x${input.idempotencyKey
            .replace(/[^0-9a-f]/g, '')
            .padEnd(64, 'a')
            .slice(0, 64)}`,
          failureReason: mode === 'fail' ? 'execution reverted' : null,
          createdAt: now,
          updatedAt: now,
        }
        sends.set(input.idempotencyKey, send)
        return send
      },
      get: async (idempotencyKey) => sends.get(idempotencyKey),
      onSettled: (handler) => {
        cryptoHandlers.add(handler)
        return () => cryptoHandlers.delete(handler)
      },
    },
    deliverFiat: async (db, update) => {
      transfers.set(update.id, update)
      await db.transaction().execute(async (trx) => {
        for (const handler of fiatHandlers) {
          await handler(trx, update)
        }
      })
    },
    settleCrypto: async (db, idempotencyKey, status) => {
      const send = sends.get(idempotencyKey)
      if (!send) {
        throw new Error(`no send ${idempotencyKey}`)
      }
      const settled: CryptoSend = {
        ...send,
        status,
        failureReason: status === 'failed' ? 'execution reverted' : null,
        updatedAt: base.clock.now(),
      }
      sends.set(idempotencyKey, settled)
      await db.transaction().execute(async (trx) => {
        for (const handler of cryptoHandlers) {
          await handler(trx, settled)
        }
      })
    },
  }
}
