import { AppError } from '@tollgate/core'
import { getAddress } from 'viem'
import { inTransaction } from '../../db/in-transaction.js'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import type { ChainName } from '../../reference/chains.js'
import type {
  ChainAsset,
  ChainEntry,
  ChainRegistry,
  ChainTransfer,
  DepositAddresses,
  IncomingTransfer,
} from '../types.js'
import { type IncomingHub, recordIncomingTransfer } from './incoming-store.js'
import type { JsonRpc } from './json-rpc.js'

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 transfer event every registry token emits. */
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

type RpcReceipt = {
  status: string
  blockNumber: string
  blockHash: string
  logs: { address: string; topics: string[]; data: string; logIndex: string; removed?: boolean }[]
} | null
type TokenBalance = { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string } }
type RpcTransaction = {
  slot: number
  meta: { err: unknown; preTokenBalances?: TokenBalance[]; postTokenBalances?: TokenBalance[] } | null
  transaction: { message: { accountKeys: string[] } }
} | null

type Candidate = ChainTransfer

/** Options of {@link createKnownTransactionReader}. */
export type KnownTransactionReaderOptions = {
  chains: ChainRegistry
  /** The JSON-RPC client of a network with a node; undefined for simulate-only chains. */
  rpcOf: (network: string) => JsonRpc | undefined
}

/**
 * Reads the token transfers of a transaction from the chain exactly as the watchers read them (token
 * `Transfer` logs of the registry's tokens in a successful receipt on EVM, SPL balance deltas of a
 * successful transaction on Solana), without recording anything. Empty when the transaction is
 * unknown, failed or moves none of the registry's tokens. 503 `provider_unavailable` on a chain
 * without a node.
 */
export function createKnownTransactionReader(options: KnownTransactionReaderOptions) {
  return async (input: {
    environment: KeyEnvironment
    chain: ChainName
    txHash: string
  }): Promise<ChainTransfer[]> => {
    const entry = options.chains.get(input.environment, input.chain)
    const rpc = entry?.hasNode ? options.rpcOf(entry.network) : undefined
    if (!entry || !rpc) {
      throw new AppError('provider_unavailable', {
        message: `No node of ${input.chain} is configured to read transaction ${input.txHash}`,
      })
    }
    return entry.family === 'evm'
      ? readEvmTransfers(rpc, entry, input.txHash)
      : entry.family === 'solana'
        ? readSolanaTransfers(rpc, entry, input.txHash)
        : []
  }
}

/** Options of {@link createKnownTransactionRecorder}. */
export type KnownTransactionRecorderOptions = KnownTransactionReaderOptions & {
  hub: IncomingHub
  addresses: DepositAddresses
}

/**
 * Records the incoming transfers of a transaction the service itself submitted (an agent payment it
 * settled), read from the chain exactly as the watchers read them (see
 * {@link createKnownTransactionReader}). The transfers go through the watchers' recording path, so a
 * watcher that later sees the same transaction finds them recorded and changes nothing; confirmations
 * left to reach are counted by the watcher as usual. Transfers to addresses that are not ours are
 * ignored. Returns what is recorded for the transaction.
 */
export function createKnownTransactionRecorder(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  options: KnownTransactionRecorderOptions,
) {
  const read = createKnownTransactionReader(options)
  return async (input: {
    environment: KeyEnvironment
    chain: ChainName
    txHash: string
  }): Promise<IncomingTransfer[]> => {
    const candidates = await read(input)
    const entry = options.chains.get(input.environment, input.chain)
    const recorded: IncomingTransfer[] = []
    for (const { to, ...candidate } of candidates) {
      const address = entry
        ? await options.addresses.find(deps.db, {
            environment: input.environment,
            chain: entry.chain,
            address: to,
          })
        : undefined
      if (!entry || !address) {
        continue
      }
      const { transfer } = await inTransaction(deps.db, (trx) =>
        recordIncomingTransfer(trx, deps, options.hub, {
          observed: { ...candidate, address },
          required: entry.confirmations,
        }),
      )
      recorded.push(transfer)
    }
    return recorded
  }
}

async function readEvmTransfers(rpc: JsonRpc, entry: ChainEntry, txHash: string): Promise<Candidate[]> {
  const [receipt, head] = (await Promise.all([
    rpc.request('eth_getTransactionReceipt', [txHash]),
    rpc.request('eth_blockNumber', []),
  ])) as [RpcReceipt, string]
  if (receipt?.status !== '0x1') {
    return []
  }
  const block = BigInt(receipt.blockNumber)
  const tokens = new Map(
    entry.assets.flatMap((a): [string, ChainAsset][] => (a.address ? [[a.address.toLowerCase(), a]] : [])),
  )
  return receipt.logs.flatMap((log): Candidate[] => {
    const token = tokens.get(log.address.toLowerCase())
    const [topic, from, to] = log.topics
    if (!token || log.removed || topic !== transferTopic || !from || !to || log.topics.length !== 3) {
      return []
    }
    const amount = BigInt(log.data)
    return amount > 0n
      ? [
          {
            to: getAddress(`0x${to.slice(26)}`),
            asset: token.symbol,
            amount,
            decimals: token.decimals,
            txHash,
            logIndex: Number(BigInt(log.logIndex)),
            fromAddress: getAddress(`0x${from.slice(26)}`),
            blockNumber: block,
            blockHash: receipt.blockHash,
            confirmations: Number(BigInt(head) - block + 1n),
          },
        ]
      : []
  })
}

async function readSolanaTransfers(rpc: JsonRpc, entry: ChainEntry, signature: string): Promise<Candidate[]> {
  const [tx, slot] = (await Promise.all([
    rpc.request('getTransaction', [
      signature,
      { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
    ]),
    rpc.request('getSlot', [{ commitment: 'confirmed' }]),
  ])) as [RpcTransaction, number]
  if (!tx?.meta || tx.meta.err !== null) {
    return []
  }
  const mints = new Map(
    entry.assets.flatMap((a): [string, ChainAsset][] =>
      a.kind === 'spl' && a.address && a.ledgerCurrency !== null ? [[a.address, a]] : [],
    ),
  )
  const before = new Map(
    (tx.meta.preTokenBalances ?? []).map((b) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]),
  )
  return (tx.meta.postTokenBalances ?? []).flatMap((balance): Candidate[] => {
    const asset = mints.get(balance.mint)
    const amount = BigInt(balance.uiTokenAmount.amount) - (before.get(balance.accountIndex) ?? 0n)
    if (!asset || !balance.owner || amount <= 0n) {
      return []
    }
    return [
      {
        to: balance.owner,
        asset: asset.symbol,
        amount,
        decimals: asset.decimals,
        txHash: signature,
        // The receiving token account's index in the transaction, as the Solana watcher keys it.
        logIndex: balance.accountIndex,
        fromAddress: tx.transaction.message.accountKeys[0] ?? null,
        blockNumber: BigInt(tx.slot),
        blockHash: null,
        confirmations: Number(BigInt(slot) - BigInt(tx.slot) + 1n),
      },
    ]
  })
}
