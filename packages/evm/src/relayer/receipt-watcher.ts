import { AppError } from '@tollgate/core'
import type { Hash, PublicClient, TransactionReceipt } from 'viem'

/** The RPC capability {@link ReceiptWatcher} needs. */
export type ReceiptClient = Pick<
  PublicClient,
  'getBlockNumber' | 'getBlockReceipts' | 'getTransactionReceipt'
>

const MAX_BLOCKS_PER_TICK = 32n

type Waiter = {
  hashes: Set<Hash>
  resolve: (receipt: TransactionReceipt) => void
  reject: (error: unknown) => void
  timer: ReturnType<typeof setTimeout>
  fresh: boolean
}

/**
 * Waits for many receipts with one polling loop: each tick reads the block number and, per new
 * block, all its receipts at once (`eth_getBlockReceipts`), instead of one `eth_getTransactionReceipt`
 * poll per pending transaction. A waiter registered since the last tick is also looked up directly
 * once, which covers transactions mined before the loop saw their block.
 */
export class ReceiptWatcher {
  readonly #client: ReceiptClient
  readonly #network: string
  readonly #intervalMs: number
  /** Delay of the next tick while a just-sent transaction was not found yet (doubles up to the interval). */
  #catchUpMs: number | undefined
  readonly #waiters = new Map<Hash, Set<Waiter>>()
  #lastBlock: bigint | undefined
  #timer: ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate> | undefined
  #blockReceipts = true
  #closed = false

  constructor(client: ReceiptClient, options: { network: string; pollingIntervalMs: number }) {
    this.#client = client
    this.#network = options.network
    this.#intervalMs = options.pollingIntervalMs
  }

  /** Resolves with the first receipt of any of `hashes` (a transaction and its replacements). */
  wait(
    hashes: Iterable<Hash>,
    timeoutMs: number,
    options: { background?: boolean } = {},
  ): Promise<TransactionReceipt> {
    const all = new Set(hashes)
    const first = [...all][0] ?? '0x'
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        hashes: all,
        resolve,
        reject,
        fresh: true,
        timer: setTimeout(() => {
          this.#remove(waiter)
          reject(
            new AppError('relayer_receipt_timeout', {
              context: { network: this.#network, hash: first, timeoutMs },
              message: `no receipt for ${first} within ${timeoutMs} ms`,
            }),
          )
        }, timeoutMs),
      }
      // Background waits (the relayer's own tracking) must not keep the process alive.
      if (options.background) {
        waiter.timer.unref()
      }
      for (const hash of all) {
        this.#index(hash, waiter)
      }
      this.#schedule(0)
    })
  }

  /** Adds `hash` (a replacement) to every waiter watching `original`. */
  alias(original: Hash, hash: Hash): void {
    for (const waiter of [...(this.#waiters.get(original.toLowerCase() as Hash) ?? [])]) {
      waiter.hashes.add(hash)
      this.#index(hash, waiter)
    }
  }

  /** Stops polling; pending waits reject. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#timer as ReturnType<typeof setTimeout>)
    clearImmediate(this.#timer as ReturnType<typeof setImmediate>)
    for (const waiter of this.#allWaiters()) {
      this.#remove(waiter)
      waiter.reject(new AppError('relayer_unavailable', { context: { network: this.#network } }))
    }
  }

  #index(hash: Hash, waiter: Waiter): void {
    const key = hash.toLowerCase() as Hash
    let set = this.#waiters.get(key)
    if (!set) {
      set = new Set()
      this.#waiters.set(key, set)
    }
    set.add(waiter)
  }

  #remove(waiter: Waiter): void {
    clearTimeout(waiter.timer)
    for (const hash of waiter.hashes) {
      const key = hash.toLowerCase() as Hash
      const set = this.#waiters.get(key)
      set?.delete(waiter)
      if (set?.size === 0) {
        this.#waiters.delete(key)
      }
    }
  }

  #deliver(receipt: TransactionReceipt): void {
    for (const waiter of this.#waiters.get(receipt.transactionHash.toLowerCase() as Hash) ?? []) {
      this.#remove(waiter)
      waiter.resolve(receipt)
    }
  }

  #schedule(delay: number): void {
    if (this.#timer === undefined && !this.#closed && this.#waiters.size > 0) {
      // A new waiter is looked up at once (on an instant-mining node its receipt already exists).
      this.#timer =
        delay === 0 ? setImmediate(() => void this.#tick()) : setTimeout(() => void this.#tick(), delay)
      this.#timer.unref()
    }
  }

  async #tick(): Promise<void> {
    try {
      // Direct lookups of new waiters run alongside the block number read: one round trip when
      // the transaction is already mined, which is the common case on fast chains.
      const fresh = [...this.#allWaiters()].filter((w) => w.fresh)
      if (fresh.length > 0) {
        // A node may mine a transaction just after answering its send (anvil's automine does):
        // a waiter not found at once is looked for again after 1, 2, 4… ms, not a whole interval.
        this.#catchUpMs = 0.5
      }
      const [head] = await Promise.all([
        this.#client.getBlockNumber({ cacheTime: 0 }),
        ...fresh.map((waiter) => this.#lookUp(waiter)),
      ])
      let from = this.#lastBlock === undefined ? head : this.#lastBlock + 1n
      if (head - from > MAX_BLOCKS_PER_TICK && this.#waiters.size > 0) {
        // Far behind (the loop was idle or the node stalled): look every waiter up directly instead.
        await Promise.all([...this.#allWaiters()].map((waiter) => this.#lookUp(waiter)))
        from = head
      }
      for (let block = from; block <= head && this.#waiters.size > 0; block++) {
        await this.#scanBlock(block)
      }
      this.#lastBlock = head
    } catch {
      // A failed poll is retried on the next tick; each waiter is bounded by its own timeout.
    } finally {
      this.#timer = undefined
      if (this.#waiters.size === 0) {
        // Idle: the next waiter starts from the head again (its direct lookup covers older blocks).
        this.#lastBlock = undefined
      }
      this.#schedule(this.#nextDelay())
    }
  }

  #nextDelay(): number {
    if (this.#catchUpMs === undefined || this.#waiters.size === 0) {
      this.#catchUpMs = undefined
      return this.#intervalMs
    }
    this.#catchUpMs *= 2
    if (this.#catchUpMs >= this.#intervalMs) {
      this.#catchUpMs = undefined
      return this.#intervalMs
    }
    return this.#catchUpMs
  }

  async #scanBlock(blockNumber: bigint): Promise<void> {
    if (this.#blockReceipts) {
      try {
        for (const receipt of await this.#client.getBlockReceipts({ blockNumber })) {
          this.#deliver(receipt)
        }
        return
      } catch (error) {
        if (!/not (found|supported|available)|does not exist|unsupported/i.test(String(error))) {
          throw error
        }
        this.#blockReceipts = false
      }
    }
    await Promise.all([...this.#allWaiters()].map((waiter) => this.#lookUp(waiter)))
  }

  #allWaiters(): Set<Waiter> {
    return new Set([...this.#waiters.values()].flatMap((set) => [...set]))
  }

  /** Looks `waiter`'s hashes up directly; it stays fresh (looked up again) until a lookup answers. */
  async #lookUp(waiter: Waiter): Promise<void> {
    for (const hash of [...waiter.hashes]) {
      if (!this.#isWaiting(waiter)) {
        return
      }
      let receipt: TransactionReceipt | undefined
      try {
        receipt = await this.#client.getTransactionReceipt({ hash })
      } catch (error) {
        if (!/could not be found|not found/i.test(String(error))) {
          return
        }
      }
      if (receipt) {
        this.#deliver(receipt)
        return
      }
    }
    waiter.fresh = false
  }

  #isWaiting(waiter: Waiter): boolean {
    const first = [...waiter.hashes][0]
    return first !== undefined && (this.#waiters.get(first.toLowerCase() as Hash)?.has(waiter) ?? false)
  }
}
