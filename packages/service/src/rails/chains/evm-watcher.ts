import { getAddress } from 'viem'
import { inTransaction } from '../../db/in-transaction.js'
import type { Deps } from '../../deps.js'
import type { ChainEntry, DepositAddress } from '../types.js'
import {
  type IncomingHub,
  type ObservedTransfer,
  recordIncomingTransfer,
  setIncomingStatus,
} from './incoming-store.js'
import type { JsonRpc } from './json-rpc.js'
import { createWatcherLooks, type WatcherLookOptions } from './watched-addresses.js'

/** keccak256("Transfer(address,address,uint256)"), the ERC-20 Transfer event topic. */
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

type RpcLog = {
  address: string
  topics: string[]
  data: string
  blockNumber: string
  blockHash: string
  transactionHash: string
  logIndex: string
  removed?: boolean
}
type RpcTransaction = { hash: string; from: string; to: string | null; value: string }
type RpcBlock = { number: string; hash: string; parentHash: string; transactions: RpcTransaction[] }
type RpcReceipt = { status: string; blockNumber: string; blockHash: string } | null

/** Options of {@link createEvmWatcher}. */
export type EvmWatcherOptions = {
  entry: ChainEntry
  rpc: JsonRpc
  hub: IncomingHub
  /** Most blocks scanned per poll (default 100). */
  maxBlocksPerPoll?: number
  /** How far back the cursor moves when its block was replaced by a reorg (default 64 blocks). */
  rewindBlocks?: number
  /** Senders whose native transfers are not deposits (the rails' own keys: sweep gas top-ups). */
  ignoreFrom?: string[]
} & WatcherLookOptions

/** What one poll did (benchmarks and tests read it). */
export type EvmPollResult = {
  head: bigint
  /** Blocks scanned, transfers to watched addresses found in them, and how many of those were new. */
  scanned: number
  found: number
  recorded: number
  rewound: boolean
  /** Nothing watched and no database read due: the poll made no RPC call (head is the last one read). */
  idle?: true
}

/** An EVM chain watcher: `poll()` scans the new blocks once; the loop in `watch-loop.ts` repeats it. */
export type EvmWatcher = { poll(): Promise<EvmPollResult>; watchedCount(): number }

const hex = (value: bigint) => `0x${value.toString(16)}`

/**
 * Watches one EVM chain (docs/rails.md "Chains"): per poll one `eth_getLogs` for the Transfer events
 * of every token of the chain and the bodies of the new blocks (native transfers), matched against
 * the watched addresses in memory, so the RPC cost does not grow with the number of addresses. The
 * cursor (last recorded block and its hash) lives in `chain_cursors`; transfers are recorded before
 * the cursor moves, and the (network, tx hash, log index) key makes a re-scan record nothing twice.
 */
export function createEvmWatcher(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'logger'>,
  options: EvmWatcherOptions,
): EvmWatcher {
  const { entry, rpc, hub } = options
  const maxBlocks = BigInt(options.maxBlocksPerPoll ?? 100)
  const rewind = BigInt(options.rewindBlocks ?? 64)
  const { watched, seenSchedule } = createWatcherLooks(deps, {
    ...options,
    network: entry.network,
    normalize: (a) => a.toLowerCase(),
  })
  let pendingSeen: number | undefined
  // The cursor as this watcher last read or wrote it, and the head read before the last address query.
  let knownCursor: { number: bigint; hash: string | null } | undefined
  let headAtLastLook: bigint | undefined
  let lastHead = 0n
  const tokens = new Map(
    entry.assets.filter((a) => a.address !== null).map((a) => [(a.address ?? '').toLowerCase(), a]),
  )
  const native = entry.assets.find((a) => a.kind === 'native')
  const ignoreFrom = new Set((options.ignoreFrom ?? []).map((a) => a.toLowerCase()))

  const readCursor = async () => {
    const row = await deps.db
      .selectFrom('chain_cursors')
      .select(['block_number', 'block_hash'])
      .where('network', '=', entry.network)
      .executeTakeFirst()
    knownCursor = row ? { number: BigInt(row.block_number), hash: row.block_hash } : undefined
    return knownCursor
  }
  const writeCursor = async (number: bigint, hash: string | null) => {
    const now = deps.clock.now()
    await deps.db
      .insertInto('chain_cursors')
      .values({ network: entry.network, block_number: number, block_hash: hash, updated_at: now })
      .onConflict((oc) =>
        oc.column('network').doUpdateSet({ block_number: number, block_hash: hash, updated_at: now }),
      )
      .execute()
    knownCursor = { number, hash }
  }

  const record = async (observed: ObservedTransfer) => {
    const { created } = await inTransaction(deps.db, (trx) =>
      recordIncomingTransfer(trx, deps, hub, { observed, required: entry.confirmations }),
    )
    return created
  }

  const findTransfers = async (
    blocks: RpcBlock[],
    logs: RpcLog[],
    head: bigint,
  ): Promise<ObservedTransfer[]> => {
    const found: ObservedTransfer[] = []
    const base = (address: DepositAddress, block: bigint, blockHash: string) => ({
      address,
      blockNumber: block,
      blockHash,
      confirmations: Number(head - block + 1n),
    })
    for (const log of logs) {
      const token = tokens.get(log.address.toLowerCase())
      const to = log.topics[2]
      const address = to && log.topics.length === 3 ? watched.get(`0x${to.slice(26)}`) : undefined
      if (!token || !address || log.removed) {
        continue
      }
      const amount = BigInt(log.data)
      if (amount > 0n) {
        found.push({
          ...base(address, BigInt(log.blockNumber), log.blockHash),
          asset: token.symbol,
          amount,
          decimals: token.decimals,
          txHash: log.transactionHash,
          logIndex: Number(BigInt(log.logIndex)),
          fromAddress: getAddress(`0x${(log.topics[1] ?? '').slice(26)}`),
        })
      }
    }
    const natives = blocks.flatMap((block) =>
      block.transactions
        .filter(
          (tx) =>
            tx.to !== null &&
            BigInt(tx.value) > 0n &&
            watched.get(tx.to) !== undefined &&
            // Gas top-ups of our own operating keys (before a sweep) are not deposits.
            !ignoreFrom.has(tx.from.toLowerCase()),
        )
        .map((tx) => ({ tx, block })),
    )
    // A value transfer to an address without code emits no log: one receipt per match tells whether it succeeded.
    const receipts = (await Promise.all(
      natives.map(({ tx }) => rpc.request('eth_getTransactionReceipt', [tx.hash])),
    )) as RpcReceipt[]
    natives.forEach(({ tx, block }, i) => {
      const address = watched.get(tx.to ?? '')
      if (native && address && receipts[i]?.status === '0x1') {
        found.push({
          ...base(address, BigInt(block.number), block.hash),
          asset: native.symbol,
          amount: BigInt(tx.value),
          decimals: native.decimals,
          txHash: tx.hash,
          // A transaction to an address without code has no logs, so index 0 cannot collide.
          logIndex: 0,
          fromAddress: getAddress(tx.from),
        })
      }
    })
    return found
  }

  // Seen transfers: confirm at the chain's count, or revert when their block left the chain and
  // the transaction is not in the new one. Cost grows with unconfirmed blocks, not with addresses.
  const trackSeen = async (head: bigint, recorded: number) => {
    if (pendingSeen === 0 && recorded === 0 && !seenSchedule.due()) {
      return
    }
    seenSchedule.looked()
    const seen = await deps.db
      .selectFrom('incoming_transfers')
      .select(['id', 'tx_hash', 'block_number', 'block_hash', 'confirmations'])
      .where('network', '=', entry.network)
      .where('status', '=', 'seen')
      .execute()
    pendingSeen = seen.length
    const numbers = [...new Set(seen.map((t) => t.block_number ?? '0'))]
    const blocks = (await Promise.all(
      numbers.map((n) => rpc.request('eth_getBlockByNumber', [hex(BigInt(n)), false])),
    )) as (RpcBlock | null)[]
    const hashes = new Map(numbers.map((n, i) => [n, blocks[i]?.hash]))
    for (const transfer of seen) {
      let block = { number: BigInt(transfer.block_number ?? '0'), hash: transfer.block_hash ?? '' }
      if (hashes.get(transfer.block_number ?? '0') !== transfer.block_hash) {
        const receipt = (await rpc.request('eth_getTransactionReceipt', [transfer.tx_hash])) as RpcReceipt
        if (receipt?.status !== '0x1') {
          await inTransaction(deps.db, (trx) =>
            setIncomingStatus(trx, deps, hub, { id: transfer.id, status: 'reverted', confirmations: 0 }),
          )
          continue
        }
        block = { number: BigInt(receipt.blockNumber), hash: receipt.blockHash }
      }
      const confirmations = Number(head - block.number + 1n)
      const status = confirmations >= entry.confirmations ? 'confirmed' : 'seen'
      if (
        status === 'confirmed' ||
        confirmations !== transfer.confirmations ||
        block.hash !== transfer.block_hash
      ) {
        await inTransaction(deps.db, (trx) =>
          setIncomingStatus(trx, deps, hub, { id: transfer.id, status, confirmations, block }),
        )
      }
    }
  }

  const poll = async (): Promise<EvmPollResult> => {
    // No address to watch, no *seen* transfer and no read due: no block can hold a deposit to find,
    // so the head is not even read (an idle sandbox polled six chains four times a second for
    // nothing). The next read (the signal of an allocation here, or the backstop) polls again; the
    // cursor has not moved meanwhile, so the blocks since are scanned then, as after any pause.
    if (watched.size() === 0 && pendingSeen === 0 && !watched.due() && !seenSchedule.due()) {
      return { head: lastHead, scanned: 0, found: 0, recorded: 0, rewound: false, idle: true }
    }
    // The head is read before the addresses: a transfer in a block up to `head` was mined before any
    // address allocated after this read was handed out, so none is missed.
    const head = BigInt((await rpc.request('eth_blockNumber', [])) as string)
    lastHead = head
    const added = await watched.refresh()
    // No new block since the cursor this watcher knows: nothing to scan, no need to read it again.
    let cursor = knownCursor && head <= knownCursor.number ? knownCursor : await readCursor()
    if (added !== undefined) {
      const since = headAtLastLook
      headAtLastLook = head
      // Addresses this read found were allocated after the previous read (another process, or a
      // commit after the signal): blocks after the head read before that read are scanned again
      // with them (recording is idempotent), so no transfer to them is missed.
      if (added.length > 0 && since !== undefined && cursor && cursor.number > since) {
        await writeCursor(since, null)
        cursor = { number: since, hash: null }
      }
    }
    if (!cursor) {
      await writeCursor(head, null)
      return { head, scanned: 0, found: 0, recorded: 0, rewound: false }
    }
    const result = { head, scanned: 0, found: 0, recorded: 0, rewound: false }
    // Nothing watched and no *seen* transfer: no block up to `head` (read before the addresses) can
    // hold a transfer to find, so the cursor jumps there instead of the first address after a long
    // idle waiting for every block mined meanwhile, `maxBlocksPerPoll` a poll. Addresses another
    // process allocated since the last look move it back when they are read (above).
    if (watched.size() === 0 && pendingSeen === 0 && head > cursor.number) {
      await writeCursor(head, null)
      return result
    }
    if (head > cursor.number) {
      const from = cursor.number + 1n
      const to = head < cursor.number + maxBlocks ? head : cursor.number + maxBlocks
      const numbers = Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i))
      const [logs, ...blocks] = (await Promise.all([
        rpc.request('eth_getLogs', [
          { fromBlock: hex(from), toBlock: hex(to), address: [...tokens.keys()], topics: [transferTopic] },
        ]),
        ...numbers.map((n) => rpc.request('eth_getBlockByNumber', [hex(n), true])),
      ])) as [RpcLog[], ...(RpcBlock | null)[]]
      const first = blocks[0]
      const complete = blocks.every((b) => b !== null)
      if (!complete || (cursor.hash !== null && first?.parentHash !== cursor.hash)) {
        // The cursor's block was replaced (reorg) or the node is behind its own head: scan again from earlier.
        const back = cursor.number > rewind ? cursor.number - rewind : 0n
        await writeCursor(back, null)
        deps.logger.warn(
          { network: entry.network, from: String(cursor.number), to: String(back) },
          'watcher rewound after a reorg',
        )
        await trackSeen(head, 0)
        return { ...result, rewound: true }
      }
      const checked = blocks as RpcBlock[]
      const hashes = new Set(checked.map((b) => b.hash))
      const transfers = await findTransfers(
        checked,
        logs.filter((l) => hashes.has(l.blockHash)),
        head,
      )
      for (const observed of transfers) {
        result.recorded += (await record(observed)) ? 1 : 0
      }
      result.found = transfers.length
      await writeCursor(to, checked[checked.length - 1]?.hash ?? null)
      result.scanned = numbers.length
    }
    await trackSeen(head, result.recorded)
    return result
  }

  return { poll, watchedCount: () => watched.size() }
}
