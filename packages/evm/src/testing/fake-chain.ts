import { createAssetRegistry, type PaymentPayload, type PaymentRequirements } from '@tollgate/core'
import {
  type AbiEvent,
  type Address,
  decodeEventLog,
  decodeFunctionData,
  encodeAbiParameters,
  encodeErrorResult,
  encodeEventTopics,
  encodeFunctionResult,
  erc20Abi,
  type Hash,
  type Hex,
  keccak256,
  multicall3Abi,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  toHex,
} from 'viem'
import { eip3009Abi, erc1271Abi, permit2Abi, x402ExactPermit2ProxyAbi } from '../abis.js'
import { ERC1271_MAGIC_VALUE, MULTICALL3_ADDRESS } from '../constants.js'
import type { EvmFacilitatorClient } from '../exact/exact-evm-context.js'
import type { Relayer } from '../relayer/types.js'

// Test doubles (no I/O): a chain that answers the facilitator's aggregate3 eth_calls from plain
// maps, and a relayer that records sends and returns canned receipts.

export const NETWORK = 'eip155:84532'
export const USDC: Address = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
export const USDT: Address = '0xF71D5fd7d9fa429e57a8882f094F385eD64FF97f'
export const MERCHANT: Address = '0x00000000000000000000000000000000000000bb'
export const NOW_MS = 1_750_000_000_000

export const assets = createAssetRegistry([
  {
    network: NETWORK,
    symbol: 'USDT',
    address: USDT,
    decimals: 6,
    transferMethods: ['permit2'],
  },
])

const ABI = [...eip3009Abi, ...erc20Abi, ...erc1271Abi, ...permit2Abi, ...x402ExactPermit2ProxyAbi] as const

/** Mutable chain state the fake answers from. */
export type FakeChainState = {
  balances: Map<string, bigint>
  allowances: Map<string, bigint>
  usedNonces: Set<string>
  permit2Bitmaps: Map<string, bigint>
  code: Map<string, Hex>
  /** Revert reason of the simulated transfer (`Error(string)`), or a raw revert. */
  revert?: string | Hex
  /** Whether contract wallets accept every signature. */
  walletAccepts: boolean
  noEip3009?: boolean
  /** The latest block (what `getBlock` answers). */
  head: { number: bigint; timestamp: bigint }
  /** Transactions the node knows: `blockNumber` null while in its pool. */
  transactions: Map<string, FakeTransaction>
  /** Receipts of mined transactions, by lowercase hash. */
  receipts: Map<string, TransactionReceipt>
  /** Every log of the chain, for `getLogs`. */
  logs: FakeLog[]
}

/** A transaction as the fake node knows it. */
export type FakeTransaction = { hash: Hash; blockNumber: bigint | null; to: Address; input: Hex }

/** One log on the fake chain. */
export type FakeLog = {
  address: Address
  topics: Hex[]
  data: Hex
  blockNumber: bigint
  transactionHash: Hash
}

/** A fake `call`/`getCode` client; `calls` counts eth_calls and `codeLookups` eth_getCode. */
export function createFakeChain(): {
  client: EvmFacilitatorClient
  state: FakeChainState
  stats: { calls: number; codeLookups: number }
} {
  const state: FakeChainState = {
    balances: new Map(),
    allowances: new Map(),
    usedNonces: new Set(),
    permit2Bitmaps: new Map(),
    code: new Map([
      [MULTICALL3_ADDRESS.toLowerCase(), '0x01'],
      [USDC.toLowerCase(), '0x01'],
      [USDT.toLowerCase(), '0x01'],
      ['0x402085c248eea27d92e8b30b2c58ed07f9e20001', '0x01'],
      ['0x000000000022d473030f116ddee9f6b43ac78ba3', '0x01'],
    ]),
    walletAccepts: true,
    head: { number: 100n, timestamp: BigInt(NOW_MS / 1000) },
    transactions: new Map(),
    receipts: new Map(),
    logs: [],
  }
  const stats = { calls: 0, codeLookups: 0 }
  const answer = (target: Address, callData: Hex): { success: boolean; returnData: Hex } => {
    if (!state.code.has(target.toLowerCase())) {
      return { success: true, returnData: '0x' }
    }
    const { functionName, args } = decodeFunctionData({ abi: ABI, data: callData })
    const ok = (returnData: Hex) => ({ success: true, returnData })
    const word = (value: bigint | boolean) => encodeAbiParameters([{ type: 'uint256' }], [BigInt(value)])
    switch (functionName) {
      case 'balanceOf':
        return ok(word(state.balances.get(String(args[0]).toLowerCase()) ?? 0n))
      case 'allowance':
        return ok(word(state.allowances.get(String(args[0]).toLowerCase()) ?? 0n))
      case 'authorizationState':
        if (state.noEip3009) {
          return { success: false, returnData: '0x' }
        }
        return ok(word(state.usedNonces.has(`${String(args[0]).toLowerCase()}:${String(args[1])}`)))
      case 'nonceBitmap':
        return ok(word(state.permit2Bitmaps.get(String(args[0]).toLowerCase()) ?? 0n))
      case 'PERMIT2':
        return ok(word(1n))
      case 'isValidSignature':
        return state.walletAccepts ? ok(`${ERC1271_MAGIC_VALUE}${'0'.repeat(56)}`) : ok(`0x${'0'.repeat(64)}`)
      case 'transferWithAuthorization':
      case 'settle':
        if (state.revert === undefined) {
          return ok('0x')
        }
        return {
          success: false,
          returnData: state.revert.startsWith('0x')
            ? (state.revert as Hex)
            : encodeErrorResult({
                abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string' }] }],
                errorName: 'Error',
                args: [state.revert],
              }),
        }
      default:
        return { success: false, returnData: '0x' }
    }
  }
  const client: EvmFacilitatorClient = {
    call: (async ({ to, data }: { to?: Address | null; data?: Hex }) => {
      stats.calls++
      if (to?.toLowerCase() !== MULTICALL3_ADDRESS.toLowerCase() || !data) {
        throw new Error('fake chain only answers aggregate3')
      }
      const decoded = decodeFunctionData({ abi: multicall3Abi, data })
      if (decoded.functionName !== 'aggregate3') {
        throw new Error('fake chain only answers aggregate3')
      }
      const results = decoded.args[0].map((c) => answer(c.target, c.callData))
      return {
        data: encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: results }),
      }
    }) as EvmFacilitatorClient['call'],
    getCode: (async ({ address }: { address: Address }) => {
      stats.codeLookups++
      return state.code.get(address.toLowerCase())
    }) as EvmFacilitatorClient['getCode'],
    getBlock: (async () => ({ ...state.head })) as unknown as EvmFacilitatorClient['getBlock'],
    getTransaction: (async ({ hash }: { hash: Hash }) => {
      const transaction = state.transactions.get(hash.toLowerCase())
      if (!transaction) {
        throw new TransactionNotFoundError({ hash })
      }
      return { ...transaction }
    }) as unknown as EvmFacilitatorClient['getTransaction'],
    getTransactionReceipt: (async ({ hash }: { hash: Hash }) => {
      const receipt = state.receipts.get(hash.toLowerCase())
      if (!receipt) {
        throw new TransactionReceiptNotFoundError({ hash })
      }
      return receipt
    }) as unknown as EvmFacilitatorClient['getTransactionReceipt'],
    getLogs: (async (filter: {
      address: Address
      event: AbiEvent
      args?: Record<string, unknown>
      fromBlock: bigint
      toBlock: bigint
    }) => {
      const abi = [filter.event]
      const wanted = encodeTopics(filter.event, filter.args ?? {})
      return state.logs
        .filter(
          (log) =>
            log.address.toLowerCase() === filter.address.toLowerCase() &&
            log.blockNumber >= filter.fromBlock &&
            log.blockNumber <= filter.toBlock &&
            wanted.every((topic, i) => topic === null || topic === log.topics[i]?.toLowerCase()),
        )
        .map((log) => ({
          ...log,
          args: decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] }).args,
        }))
    }) as unknown as EvmFacilitatorClient['getLogs'],
  }
  return { client, state, stats }
}

/**
 * Puts a mined transaction on the fake chain: known to the node, with a successful receipt whose
 * logs (each an event of `abi` with its args, emitted by `address`) `getLogs` also finds.
 */
export function mineFakeTransaction(
  state: FakeChainState,
  transaction: { hash: Hash; to: Address; input?: Hex; blockNumber?: bigint },
  events: Array<{ address: Address; event: AbiEvent; args: Record<string, unknown> }>,
): void {
  const blockNumber = transaction.blockNumber ?? state.head.number
  const logs = events.map(({ address, event, args }): FakeLog => {
    const indexed = Object.fromEntries(
      event.inputs.filter((input) => input.indexed).map((input) => [input.name, args[input.name ?? '']]),
    )
    const topics = encodeTopics(event, indexed)
    const unindexed = event.inputs.filter((input) => !input.indexed)
    return {
      address,
      topics: topics as Hex[],
      data: encodeAbiParameters(
        unindexed,
        unindexed.map((input) => args[input.name ?? '']),
      ),
      blockNumber,
      transactionHash: transaction.hash,
    }
  })
  state.logs.push(...logs)
  state.transactions.set(transaction.hash.toLowerCase(), {
    hash: transaction.hash,
    blockNumber,
    to: transaction.to,
    input: transaction.input ?? '0x',
  })
  state.receipts.set(transaction.hash.toLowerCase(), {
    transactionHash: transaction.hash,
    status: 'success',
    logs,
  } as unknown as TransactionReceipt)
}

/** Options of {@link createFakeRelayer}: how the receipt comes back. */
export type FakeRelayerBehavior = {
  receipt: 'success' | 'reverted' | 'timeout' | 'no-transfer-log'
  /** Per-hash override of `receipt` (a transaction the node dropped times out, its successor lands). */
  receiptOf?: (hash: Hash) => FakeRelayerBehavior['receipt'] | undefined
  /** The Transfer log every receipt carries. */
  transfer?: { token: Address; from: Address; to: Address; value: bigint }
  sendError?: Error
}

/** A relayer double: records each send and answers `waitForReceipt` per `behavior`. */
export function createFakeRelayer(behavior: FakeRelayerBehavior = { receipt: 'success' }) {
  const sent: Array<{ to: Address; data: Hex; gas?: bigint | undefined; hash: Hash }> = []
  const events: string[] = []
  const relayer: Relayer = {
    network: NETWORK,
    async send(request, options) {
      if (behavior.sendError) {
        throw behavior.sendError
      }
      const hash = keccak256(toHex(`tx-${sent.length}`))
      await options?.onBroadcast?.(hash)
      events.push(`broadcast:${hash}`)
      sent.push({ ...request, hash })
      return { hash, from: '0x0000000000000000000000000000000000000001', nonce: sent.length - 1 }
    },
    async waitForReceipt(hash) {
      events.push(`wait:${hash}`)
      const kind = behavior.receiptOf?.(hash) ?? behavior.receipt
      if (kind === 'timeout') {
        throw new Error('receipt timeout')
      }
      const transfer = behavior.transfer
      const logs =
        transfer && kind !== 'no-transfer-log'
          ? [
              {
                address: transfer.token,
                topics: [
                  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
                  `0x${transfer.from.slice(2).toLowerCase().padStart(64, '0')}`,
                  `0x${transfer.to.slice(2).toLowerCase().padStart(64, '0')}`,
                ],
                data: encodeAbiParameters([{ type: 'uint256' }], [transfer.value]),
              },
            ]
          : []
      return {
        transactionHash: hash,
        status: kind === 'reverted' ? 'reverted' : 'success',
        logs,
      } as unknown as TransactionReceipt
    },
    getAddresses: () => ['0x0000000000000000000000000000000000000001'],
    getBalances: async () => [],
    close: () => undefined,
  }
  return { relayer, sent, events }
}

/** x402 exact requirements on the fake network, with overrides. */
export function buildRequirements(overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: 'exact',
    network: NETWORK,
    amount: '10000',
    asset: USDC,
    payTo: MERCHANT,
    maxTimeoutSeconds: 300,
    extra: { name: 'USDC', version: '2' },
    ...overrides,
  }
}

/** A v2 payment payload echoing `requirements` in `accepted`. */
export function buildPayment(
  requirements: PaymentRequirements,
  payload: Record<string, unknown>,
): PaymentPayload {
  return { x402Version: 2, accepted: requirements, payload }
}

// Topics of `event` with `args` filled in (null where an indexed argument is not given), lowercase.
function encodeTopics(event: AbiEvent, args: Record<string, unknown>): Array<Hex | null> {
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as unknown as Parameters<
    typeof encodeEventTopics
  >[0])
  return topics.map((topic) => (typeof topic === 'string' ? (topic.toLowerCase() as Hex) : null))
}
