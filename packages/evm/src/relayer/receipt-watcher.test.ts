import type { Hash, TransactionReceipt } from 'viem'
import { describe, expect, it } from 'vitest'
import { type ReceiptClient, ReceiptWatcher } from './receipt-watcher.js'

const HASH = `0x${'ab'.repeat(32)}` as Hash
const receipt = (hash: Hash, blockNumber: bigint) =>
  ({ transactionHash: hash, blockNumber, status: 'success' }) as TransactionReceipt

/** A node whose blocks are `blocks` (number -> receipts); `failLookups` makes direct lookups fail. */
function createNode(blocks: Map<bigint, TransactionReceipt[]>, options: { failLookups?: number } = {}) {
  const calls: string[] = []
  let failures = options.failLookups ?? 0
  const client: ReceiptClient = {
    getBlockNumber: async () => {
      calls.push('blockNumber')
      return [...blocks.keys()].reduce((a, b) => (a > b ? a : b), 0n)
    },
    getBlockReceipts: async ({ blockNumber }: { blockNumber?: bigint }) => {
      calls.push(`blockReceipts:${blockNumber}`)
      return blocks.get(blockNumber ?? 0n) ?? []
    },
    getTransactionReceipt: async ({ hash }: { hash: Hash }) => {
      calls.push('receipt')
      if (failures > 0) {
        failures -= 1
        throw new Error('socket hang up')
      }
      const found = [...blocks.values()].flat().find((r) => r.transactionHash === hash)
      if (!found) {
        throw new Error(`Transaction receipt with hash "${hash}" could not be found.`)
      }
      return found
    },
  } as unknown as ReceiptClient
  return { client, calls }
}

describe('ReceiptWatcher', () => {
  it('finds an already mined transaction with one direct lookup beside the head read', async () => {
    const node = createNode(new Map([[5n, [receipt(HASH, 5n)]]]))
    const watcher = new ReceiptWatcher(node.client, { network: 'eip155:1', pollingIntervalMs: 10 })
    expect((await watcher.wait([HASH], 1000)).blockNumber).toBe(5n)
    expect(node.calls.filter((c) => c === 'receipt')).toHaveLength(1)
    watcher.close()
  })

  it('finds a transaction mined later by scanning the new blocks', async () => {
    const blocks = new Map<bigint, TransactionReceipt[]>([[5n, []]])
    const node = createNode(blocks)
    const watcher = new ReceiptWatcher(node.client, { network: 'eip155:1', pollingIntervalMs: 5 })
    const waiting = watcher.wait([HASH], 1000)
    await new Promise((resolve) => setTimeout(resolve, 20))
    blocks.set(6n, [receipt(HASH, 6n)])
    expect((await waiting).blockNumber).toBe(6n)
    expect(node.calls).toContain('blockReceipts:6')
    watcher.close()
  })

  it('looks a transaction up directly again when the first lookup failed (it may sit in an old block)', async () => {
    // Mined in block 3, while the loop starts from head 9: only a direct lookup can find it.
    const blocks = new Map<bigint, TransactionReceipt[]>([
      [3n, [receipt(HASH, 3n)]],
      [9n, []],
    ])
    const node = createNode(blocks, { failLookups: 1 })
    const watcher = new ReceiptWatcher(node.client, { network: 'eip155:1', pollingIntervalMs: 5 })
    expect((await watcher.wait([HASH], 1000)).blockNumber).toBe(3n)
    expect(node.calls.filter((c) => c === 'receipt')).toHaveLength(2)
    watcher.close()
  })

  it('looks again within milliseconds for a transaction mined just after its send, not a whole interval later', async () => {
    const blocks = new Map<bigint, TransactionReceipt[]>([[5n, []]])
    const node = createNode(blocks)
    // A one-minute interval: without the catch-up polls this wait would outlast the test's timeout.
    const watcher = new ReceiptWatcher(node.client, { network: 'eip155:1', pollingIntervalMs: 60_000 })
    const waiting = watcher.wait([HASH], 120_000)
    setTimeout(() => blocks.set(6n, [receipt(HASH, 6n)]), 5)
    expect((await waiting).blockNumber).toBe(6n)
    watcher.close()
  })

  it('rejects with relayer_receipt_timeout when nothing comes', async () => {
    const node = createNode(new Map([[1n, []]]))
    const watcher = new ReceiptWatcher(node.client, { network: 'eip155:1', pollingIntervalMs: 5 })
    await expect(watcher.wait([HASH], 30)).rejects.toMatchObject({ code: 'relayer_receipt_timeout' })
    watcher.close()
  })
})
