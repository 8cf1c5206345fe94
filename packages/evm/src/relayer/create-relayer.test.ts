import { isAppError } from '@tollgate/core'
import {
  type Address,
  type Hash,
  type Hex,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionReceipt,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { createRelayer, type RelayerClient } from './create-relayer.js'

const keys = [
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
] as const
const accounts = keys.map((k) => privateKeyToAccount(k))
const NETWORK = 'eip155:84532'
const request = { to: '0x00000000000000000000000000000000000000aa', data: '0x1234', gas: 100_000n } as const

type SentTx = {
  raw: Hex
  hash: Hash
  from: Address
  nonce: number
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

/** A node double: per-sender nonces, a pool, manual mining, scripted send failures. */
function createFakeNode(options: { baseFee?: bigint; counts?: Record<string, number> } = {}) {
  const counts = new Map(Object.entries(options.counts ?? {}).map(([a, n]) => [a.toLowerCase(), n]))
  const pool: SentTx[] = []
  const blocks: TransactionReceipt[][] = [[]]
  const failures: Array<(tx: SentTx) => Error | undefined> = []
  const stats = { countReads: 0, blockReceiptReads: 0 }
  const client: RelayerClient = {
    getTransactionCount: (async ({ address }: { address: Address }) => {
      stats.countReads++
      return counts.get(address.toLowerCase()) ?? 0
    }) as RelayerClient['getTransactionCount'],
    sendRawTransaction: (async ({ serializedTransaction }: { serializedTransaction: Hex }) => {
      const parsed = parseTransaction(serializedTransaction)
      const from = await recoverTransactionAddress({ serializedTransaction } as never)
      const tx: SentTx = {
        raw: serializedTransaction,
        hash: keccak256(serializedTransaction),
        from,
        nonce: parsed.nonce ?? 0,
        maxFeePerGas: parsed.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n,
      }
      for (const failure of failures) {
        const error = failure(tx)
        if (error) {
          throw error
        }
      }
      if (pool.some((p) => p.hash === tx.hash)) {
        throw new Error('already known')
      }
      const mined = counts.get(from.toLowerCase()) ?? 0
      if (tx.nonce < mined) {
        throw new Error('nonce too low')
      }
      pool.push(tx)
      return tx.hash
    }) as RelayerClient['sendRawTransaction'],
    getBlock: (async () => ({
      baseFeePerGas: options.baseFee ?? 1_000_000_000n,
    })) as unknown as RelayerClient['getBlock'],
    estimateMaxPriorityFeePerGas: (async () => 1_000_000n) as RelayerClient['estimateMaxPriorityFeePerGas'],
    estimateGas: (async () => 50_000n) as RelayerClient['estimateGas'],
    getBlockNumber: (async () => BigInt(blocks.length - 1)) as RelayerClient['getBlockNumber'],
    getBlockReceipts: (async ({ blockNumber }: { blockNumber: bigint }) => {
      stats.blockReceiptReads++
      return blocks[Number(blockNumber)] ?? []
    }) as unknown as RelayerClient['getBlockReceipts'],
    getTransactionReceipt: (async ({ hash }: { hash: Hash }) => {
      const receipt = blocks.flat().find((r) => r.transactionHash === hash)
      if (!receipt) {
        throw new Error('not found')
      }
      return receipt
    }) as RelayerClient['getTransactionReceipt'],
    getBalance: (async () => 10n ** 18n) as RelayerClient['getBalance'],
  }
  /** Mines every pool transaction whose nonce is next for its sender (one block). */
  const mine = (filter: (tx: SentTx) => boolean = () => true) => {
    const block: TransactionReceipt[] = []
    for (const tx of [...pool].sort((a, b) => a.nonce - b.nonce)) {
      const next = counts.get(tx.from.toLowerCase()) ?? 0
      if (tx.nonce === next && filter(tx)) {
        counts.set(tx.from.toLowerCase(), next + 1)
        block.push({ transactionHash: tx.hash, status: 'success', logs: [] } as unknown as TransactionReceipt)
        pool.splice(pool.indexOf(tx), 1)
        for (const stale of pool.filter((p) => p.from === tx.from && p.nonce === tx.nonce)) {
          pool.splice(pool.indexOf(stale), 1)
        }
      }
    }
    blocks.push(block)
  }
  return { client, pool, mine, failures, stats, counts }
}

describe('createRelayer', () => {
  test('default: 100 concurrent sends over 4 keys get distinct, gap-free nonces with one count read per key', async () => {
    const node = createFakeNode({ counts: { [accounts[1]?.address ?? '']: 7 } })
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts })
    const sent = await Promise.all(Array.from({ length: 100 }, () => relayer.send(request)))
    expect(new Set(sent.map((s) => s.hash)).size).toBe(100)
    for (const account of accounts) {
      const nonces = sent
        .filter((s) => s.from === account.address)
        .map((s) => s.nonce)
        .sort((a, b) => a - b)
      const start = account === accounts[1] ? 7 : 0
      expect(nonces).toEqual(nonces.map((_, i) => start + i))
      expect(nonces.length).toBeGreaterThan(10)
    }
    expect(node.stats.countReads).toBe(4)
    relayer.close()
  })

  test('behavior: "nonce too low" (another sender used the key) resyncs and retries', async () => {
    const node = createFakeNode()
    const [account] = accounts
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts: [account as never] })
    await relayer.send(request)
    node.counts.set(account?.address.toLowerCase() ?? '', 5)
    const sent = await relayer.send(request)
    expect(sent.nonce).toBe(5)
    relayer.close()
  })

  test('behavior: "already known" means the transaction is in the pool', async () => {
    const node = createFakeNode()
    node.failures.push(() => new Error('already known'))
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts: accounts.slice(0, 1) })
    const sent = await relayer.send(request)
    expect(sent.nonce).toBe(0)
    relayer.close()
  })

  test('behavior: a refused send gives its nonce back (no gap)', async () => {
    const node = createFakeNode()
    let refuse = true
    node.failures.push(() => (refuse ? new Error('intrinsic gas too low') : undefined))
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts: accounts.slice(0, 1) })
    const error = await relayer.send(request).catch((e: unknown) => e)
    expect(isAppError(error, 'relayer_send_failed')).toBe(true)
    refuse = false
    expect((await relayer.send(request)).nonce).toBe(0)
    relayer.close()
  })

  test('behavior: a fee payer out of gas money hands the send to another key', async () => {
    const node = createFakeNode()
    const [poor, rich] = accounts
    node.failures.push((tx) =>
      tx.from === poor?.address ? new Error('insufficient funds for gas * price + value') : undefined,
    )
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts: [poor, rich] as never })
    const sent = await Promise.all([relayer.send(request), relayer.send(request)])
    expect(sent.map((s) => s.from)).toEqual([rich?.address, rich?.address])
    expect(sent.map((s) => s.nonce).sort()).toEqual([0, 1])
    relayer.close()
  })

  test('behavior: fee and gas caps fail clearly without using a nonce', async () => {
    const node = createFakeNode({ baseFee: 50_000_000_000n })
    const relayer = createRelayer({
      network: NETWORK,
      client: node.client,
      accounts: accounts.slice(0, 1),
      maxFeePerGasCap: 10_000_000_000n,
      gasLimitCap: 200_000n,
    })
    const feeError = await relayer.send(request).catch((e: unknown) => e)
    expect(isAppError(feeError, 'relayer_fee_cap_exceeded')).toBe(true)
    const gasError = await relayer.send({ ...request, gas: 300_000n }).catch((e: unknown) => e)
    expect(isAppError(gasError, 'relayer_gas_cap_exceeded')).toBe(true)
    expect(node.pool).toHaveLength(0)
    relayer.close()
  })

  test('behavior: fees are 2 × base fee + tip, clamped to the cap', async () => {
    const node = createFakeNode({ baseFee: 4_000_000_000n })
    const relayer = createRelayer({
      network: NETWORK,
      client: node.client,
      accounts: accounts.slice(0, 1),
      maxFeePerGasCap: 5_000_000_000n,
    })
    await relayer.send(request)
    expect(node.pool[0]).toMatchObject({ maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 1_000_000n })
    relayer.close()
  })

  test('behavior: waits for receipts from block receipts, bounded by a timeout', async () => {
    const node = createFakeNode()
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts, pollingIntervalMs: 5 })
    const sent = await Promise.all([relayer.send(request), relayer.send(request)])
    const waits = sent.map((s) => relayer.waitForReceipt(s.hash, { timeoutMs: 5_000 }))
    node.mine()
    const receipts = await Promise.all(waits)
    expect(receipts.map((r) => r.transactionHash)).toEqual(sent.map((s) => s.hash))
    const late = await relayer.send(request)
    const timeout = await relayer.waitForReceipt(late.hash, { timeoutMs: 30 }).catch((e: unknown) => e)
    expect(isAppError(timeout, 'relayer_receipt_timeout')).toBe(true)
    relayer.close()
  })

  test('behavior: a stuck transaction is replaced (same nonce, fees +12%) and waits follow the replacement', async () => {
    const node = createFakeNode()
    const relayer = createRelayer({
      network: NETWORK,
      client: node.client,
      accounts: accounts.slice(0, 1),
      pollingIntervalMs: 5,
      replaceAfterMs: 40,
    })
    const broadcasts: Hash[] = []
    const sent = await relayer.send(request, { onBroadcast: (hash) => void broadcasts.push(hash) })
    const wait = relayer.waitForReceipt(sent.hash, { timeoutMs: 5_000 })
    // The node drops the original from its pool (as anvil_dropTransaction does).
    node.pool.splice(0, 1)
    while (node.pool.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const replacement = node.pool[0]
    expect(replacement?.nonce).toBe(sent.nonce)
    expect(replacement?.hash).not.toBe(sent.hash)
    expect(replacement?.maxFeePerGas).toBe((2_001_000_000n * 112n + 99n) / 100n)
    expect(broadcasts).toEqual([sent.hash, replacement?.hash])
    node.mine()
    expect((await wait).transactionHash).toBe(replacement?.hash)
    relayer.close()
  })

  test('behavior: after an idle stretch the watcher does not scan every block it missed', async () => {
    const node = createFakeNode()
    const relayer = createRelayer({ network: NETWORK, client: node.client, accounts, pollingIntervalMs: 5 })
    const first = await relayer.send(request)
    node.mine()
    await relayer.waitForReceipt(first.hash, { timeoutMs: 5_000 })
    await new Promise((resolve) => setTimeout(resolve, 30))
    for (let i = 0; i < 500; i++) {
      node.mine()
    }
    const reads = node.stats.blockReceiptReads
    const second = await relayer.send(request)
    node.mine()
    expect((await relayer.waitForReceipt(second.hash, { timeoutMs: 5_000 })).transactionHash).toBe(
      second.hash,
    )
    expect(node.stats.blockReceiptReads - reads).toBeLessThan(10)
    relayer.close()
  })
})
