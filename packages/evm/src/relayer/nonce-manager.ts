/**
 * Hands out the nonces of one fee-payer key locally, so concurrent sends never ask the node and
 * never collide. It starts from the node's `pending` transaction count (which also makes a
 * restarted relayer pick up after transactions still in the mempool), takes back nonces whose
 * transaction certainly never reached the node (so no gap stalls later ones), and can resync
 * after a "nonce too low" without ever handing out a nonce that is still in use.
 */
export class NonceManager {
  readonly #fetchPendingCount: () => Promise<number>
  #next: number | undefined
  #loading: Promise<void> | undefined
  #free: number[] = []
  #inFlight = 0

  constructor(fetchPendingCount: () => Promise<number>) {
    this.#fetchPendingCount = fetchPendingCount
  }

  /** Nonces handed out and not yet settled by {@link confirm} or {@link release}. */
  get inFlight(): number {
    return this.#inFlight
  }

  /** The next nonce to use: the lowest released one, else the next fresh one. */
  async acquire(): Promise<number> {
    if (this.#next === undefined) {
      this.#loading ??= this.#load()
      await this.#loading
    }
    this.#inFlight++
    const reused = this.#free.shift()
    if (reused !== undefined) {
      return reused
    }
    const nonce = this.#next ?? 0
    this.#next = nonce + 1
    return nonce
  }

  /** The transaction with `nonce` reached the node (or was mined): the nonce stays used. */
  confirm(_nonce: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1)
  }

  /** The transaction with `nonce` certainly never reached the node: hand the nonce out again. */
  release(nonce: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1)
    if (this.#next !== undefined && nonce === this.#next - 1) {
      this.#next = nonce
      return
    }
    if (!this.#free.includes(nonce)) {
      this.#free.push(nonce)
      this.#free.sort((a, b) => a - b)
    }
  }

  /**
   * Re-reads the pending count after the node said a nonce was too low. Moves forward only:
   * nonces already handed out above the node's count may be on their way to it.
   */
  async resync(): Promise<void> {
    const pending = await this.#fetchPendingCount()
    this.#next = Math.max(this.#next ?? 0, pending)
    this.#free = this.#free.filter((n) => n >= pending)
  }

  async #load(): Promise<void> {
    try {
      const pending = await this.#fetchPendingCount()
      this.#next ??= pending
    } finally {
      this.#loading = undefined
    }
  }
}
