import { AppError, getEvmChainId } from '@tollgate/core'
import { type Address, type Hash, type Hex, keccak256, type LocalAccount, type PublicClient } from 'viem'
import { describeError } from '../rpc/describe-error.js'
import { classifySendError } from './classify-send-error.js'
import { FeeOracle, type Fees } from './fee-oracle.js'
import { NonceManager } from './nonce-manager.js'
import { ReceiptWatcher } from './receipt-watcher.js'
import type { Relayer, RelayerSendOptions, RelayerTransactionRequest } from './types.js'

/** The RPC capability a relayer needs (a viem PublicClient fits). */
export type RelayerClient = Pick<
  PublicClient,
  | 'getTransactionCount'
  | 'sendRawTransaction'
  | 'getBlock'
  | 'estimateMaxPriorityFeePerGas'
  | 'estimateGas'
  | 'getBlockNumber'
  | 'getBlockReceipts'
  | 'getTransactionReceipt'
  | 'getBalance'
>

/** Options of {@link createRelayer}. */
export type RelayerOptions = {
  /** CAIP-2 network (`eip155:<chainId>`); the chain id signs every transaction. */
  network: string
  client: RelayerClient
  /** The fee-payer pool; sends go to the key with the fewest transactions in flight. */
  accounts: LocalAccount[]
  /** Largest gas limit the relayer signs (default 1,000,000). */
  gasLimitCap?: bigint
  /** Largest `maxFeePerGas` (wei); a base fee above it fails sends with `relayer_fee_cap_exceeded`. */
  maxFeePerGasCap?: bigint
  /** Largest `maxPriorityFeePerGas` (wei). */
  maxPriorityFeePerGasCap?: bigint
  /** Receipt polling interval (default 500 ms; 50 ms suits anvil). */
  pollingIntervalMs?: number
  /** A transaction without receipt for this long is re-sent with the same nonce and higher fees (default 30 s). */
  replaceAfterMs?: number
  /** Fee raise of a replacement in percent (default 12; nodes require at least 10). */
  feeBumpPercent?: number
  /** Attempts per send when the nonce turned out to be taken (default 3). */
  maxSendAttempts?: number
  now?: () => number
}

type Key = { account: LocalAccount; nonces: NonceManager }

type Tracked = {
  key: Key
  nonce: number
  request: RelayerTransactionRequest & { gas: bigint }
  fees: Fees
  hashes: Hash[]
  raw: Hex
  sentAt: number
  onBroadcast: RelayerSendOptions['onBroadcast']
}

const TRACK_MS = 60 * 60_000

/**
 * Creates the relayer of one network: signs locally with a pool of fee-payer keys (so the hash is
 * known before broadcast), hands out nonces locally per key, caps gas and fees, waits for receipts
 * with one shared poller, and re-sends stuck transactions with bumped fees.
 */
export function createRelayer(options: RelayerOptions): Relayer {
  const relayer = createRelayerState(options)
  const { network, client, keys, tracked, watcher } = relayer
  return {
    network,
    send: (request, sendOptions = {}) => sendTransaction(relayer, request, sendOptions),
    waitForReceipt: (hash, { timeoutMs }) => {
      const entry = [...tracked.values()].find((t) => t.hashes.includes(hash))
      return watcher.wait(entry ? entry.hashes : [hash], timeoutMs)
    },
    getAddresses: () => keys.map((k) => k.account.address),
    getBalances: () =>
      Promise.all(
        keys.map(async ({ account }) => ({
          address: account.address,
          balance: await client.getBalance({ address: account.address }),
        })),
      ),
    close: () => {
      clearInterval(relayer.replaceTimer)
      watcher.close()
    },
  }
}

// What the relayer's parts share: settings, the key pool with its nonces, fees, the receipt
// watcher, and the transactions sent and not yet known mined (tracked for replacement).
type RelayerState = {
  network: string
  client: RelayerClient
  chainId: number
  now: () => number
  gasLimitCap: bigint
  replaceAfterMs: number
  bumpPercent: bigint
  maxSendAttempts: number
  keys: Key[]
  fees: FeeOracle
  watcher: ReceiptWatcher
  tracked: Map<string, Tracked>
  /** Round-robin position of {@link pickKey}. */
  turn: number
  replaceTimer: ReturnType<typeof setInterval> | undefined
}

/** Validates the options and builds the key pool, fee oracle and receipt watcher. */
function createRelayerState(options: RelayerOptions): RelayerState {
  const { network, client } = options
  const chainId = getEvmChainId(network)
  const now = options.now ?? Date.now
  if (options.accounts.length === 0) {
    throw new AppError('relayer_unavailable', {
      context: { network },
      message: 'relayer needs at least one account',
    })
  }
  const keys: Key[] = options.accounts.map((account) => ({
    account,
    nonces: new NonceManager(() =>
      client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
    ),
  }))
  const fees = new FeeOracle(client, {
    network,
    ...(options.maxFeePerGasCap !== undefined ? { maxFeePerGasCap: options.maxFeePerGasCap } : {}),
    ...(options.maxPriorityFeePerGasCap !== undefined
      ? { maxPriorityFeePerGasCap: options.maxPriorityFeePerGasCap }
      : {}),
    now,
  })
  return {
    network,
    client,
    chainId,
    now,
    gasLimitCap: options.gasLimitCap ?? 1_000_000n,
    replaceAfterMs: options.replaceAfterMs ?? 30_000,
    bumpPercent: BigInt(Math.max(10, options.feeBumpPercent ?? 12)),
    maxSendAttempts: options.maxSendAttempts ?? 3,
    keys,
    fees,
    watcher: new ReceiptWatcher(client, { network, pollingIntervalMs: options.pollingIntervalMs ?? 500 }),
    tracked: new Map(),
    turn: 0,
    replaceTimer: undefined,
  }
}

/** The key with the fewest transactions in flight, round-robin among equals, outside `exclude`. */
function pickKey(relayer: RelayerState, exclude: Set<Key>): Key | undefined {
  const { keys } = relayer
  const candidates = keys.filter((k) => !exclude.has(k))
  relayer.turn = (relayer.turn + 1) % keys.length
  let best: Key | undefined
  for (let i = 0; i < candidates.length; i++) {
    const key = candidates[(relayer.turn + i) % candidates.length]
    if (key && (!best || key.nonces.inFlight < best.nonces.inFlight)) {
      best = key
    }
  }
  return best
}

/** Signs an EIP-1559 transaction of `request` with `key` at `nonce` and `price`. */
function signTransaction(
  relayer: RelayerState,
  key: Key,
  nonce: number,
  request: Tracked['request'],
  price: Fees,
): Promise<Hex> {
  return key.account.signTransaction({
    chainId: relayer.chainId,
    type: 'eip1559',
    to: request.to,
    data: request.data,
    gas: request.gas,
    value: request.value ?? 0n,
    nonce,
    maxFeePerGas: price.maxFeePerGas,
    maxPriorityFeePerGas: price.maxPriorityFeePerGas,
  })
}

/**
 * Sends `request` from the least busy key: estimates gas (capped), signs, reports the hash through
 * `onBroadcast` before sending, and retries on a taken nonce (resynced) or, with another key, on
 * insufficient funds. A sent transaction is tracked for replacement.
 */
async function sendTransaction(
  relayer: RelayerState,
  request: RelayerTransactionRequest,
  sendOptions: RelayerSendOptions,
): ReturnType<Relayer['send']> {
  const { network, client, gasLimitCap, fees, keys } = relayer
  const excluded = new Set<Key>()
  let key = pickKey(relayer, excluded)
  const gas = request.gas ?? (await estimateGas(client, key?.account.address, request))
  if (gas > gasLimitCap) {
    throw new AppError('relayer_gas_cap_exceeded', {
      context: { network, gas: String(gas), gasLimitCap: String(gasLimitCap) },
      message: `gas limit ${gas} is above the relayer's cap of ${gasLimitCap}`,
    })
  }
  const full = { ...request, gas }
  const price = await fees.getFees()
  let lastError: unknown
  for (let attempt = 0; key && attempt < relayer.maxSendAttempts + keys.length; attempt++) {
    const nonce = await key.nonces.acquire()
    let raw: Hex
    try {
      raw = await signTransaction(relayer, key, nonce, full, price)
      await sendOptions.onBroadcast?.(keccak256(raw))
    } catch (error) {
      key.nonces.release(nonce)
      throw error
    }
    const hash = keccak256(raw)
    const outcome = await client.sendRawTransaction({ serializedTransaction: raw }).then(
      () => 'sent' as const,
      (error: unknown) => {
        lastError = error
        return classifySendError(error)
      },
    )
    if (outcome === 'sent' || outcome === 'already_known' || outcome === 'ambiguous') {
      key.nonces.confirm(nonce)
      track(relayer, {
        key,
        nonce,
        request: full,
        fees: price,
        hashes: [hash],
        raw,
        sentAt: relayer.now(),
        onBroadcast: sendOptions.onBroadcast,
      })
      return { hash, from: key.account.address, nonce }
    }
    if (outcome === 'nonce_too_low' || outcome === 'underpriced') {
      // The nonce is taken (another process used this key, or a restart): never reuse it.
      key.nonces.confirm(nonce)
      await key.nonces.resync()
      continue
    }
    key.nonces.release(nonce)
    if (outcome !== 'insufficient_funds') {
      break
    }
    excluded.add(key)
    key = pickKey(relayer, excluded)
  }
  throw new AppError('relayer_send_failed', {
    context: { network, from: key?.account.address ?? '' },
    cause: lastError,
    message: `relayer could not send: ${describeError(lastError, 'no attempt succeeded')}`,
  })
}

/** Watches a sent transaction in the background and starts the stuck-transaction replacer. */
function track(relayer: RelayerState, entry: Tracked): void {
  const id = `${entry.key.account.address}:${entry.nonce}`
  relayer.tracked.set(id, entry)
  relayer.watcher
    .wait(entry.hashes, TRACK_MS, { background: true })
    .catch(() => undefined)
    .finally(() => {
      if (relayer.tracked.get(id) === entry) {
        relayer.tracked.delete(id)
      }
    })
  relayer.replaceTimer ??= setInterval(
    () => void replaceStuck(relayer),
    Math.max(100, Math.floor(relayer.replaceAfterMs / 3)),
  )
  relayer.replaceTimer.unref()
}

// Re-sends each transaction that has waited `replaceAfterMs` without a receipt: same nonce,
// fees bumped (or, at the cap, the same signed bytes again, in case a node dropped it).
async function replaceStuck(relayer: RelayerState): Promise<void> {
  const { tracked, fees, client, watcher } = relayer
  if (tracked.size === 0) {
    clearInterval(relayer.replaceTimer)
    relayer.replaceTimer = undefined
    return
  }
  for (const entry of [...tracked.values()]) {
    if (relayer.now() - entry.sentAt < relayer.replaceAfterMs) {
      continue
    }
    entry.sentAt = relayer.now()
    const atCap = fees.isAtCap(entry.fees)
    // At least +bumpPercent over the stuck one (nodes demand +10%), and at least today's fees.
    const current = await fees.getFees().catch(() => entry.fees)
    const bumped = fees.bump(entry.fees, relayer.bumpPercent)
    const price = atCap
      ? entry.fees
      : {
          maxFeePerGas: max(bumped.maxFeePerGas, current.maxFeePerGas),
          maxPriorityFeePerGas: max(bumped.maxPriorityFeePerGas, current.maxPriorityFeePerGas),
        }
    const raw = atCap
      ? entry.raw
      : await signTransaction(relayer, entry.key, entry.nonce, entry.request, price)
    const hash = keccak256(raw)
    try {
      if (!atCap) {
        await entry.onBroadcast?.(hash)
      }
      await client.sendRawTransaction({ serializedTransaction: raw })
    } catch (error) {
      const kind = classifySendError(error)
      if (kind !== 'already_known' && kind !== 'ambiguous') {
        continue
      }
    }
    if (!atCap) {
      const original = entry.hashes[0] as Hash
      entry.hashes.push(hash)
      entry.fees = price
      entry.raw = raw
      watcher.alias(original, hash)
    }
  }
}

async function estimateGas(
  client: RelayerClient,
  from: Address | undefined,
  request: RelayerTransactionRequest,
): Promise<bigint> {
  const estimate = await client.estimateGas({
    ...(from ? { account: from } : {}),
    to: request.to,
    data: request.data,
    ...(request.value ? { value: request.value } : {}),
  })
  // 20% headroom: state can change between estimate and inclusion.
  return (estimate * 120n) / 100n
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}
