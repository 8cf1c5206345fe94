import type { Blockhash, GetSignatureStatusesApi, IsBlockhashValidApi, Rpc, Signature } from '@solana/kit'

/** How waiting for a signature ended. */
export type SignatureOutcome =
  | { status: 'confirmed' }
  | { status: 'failed'; err: unknown }
  /** The blockhash expired and the transaction is in no block: it can never land. */
  | { status: 'expired' }
  | { status: 'timeout' }

type Waiter = {
  signature: Signature
  blockhash: Blockhash | undefined
  deadline: number
  backstop: ReturnType<typeof setTimeout>
  resolve(outcome: SignatureOutcome): void
}

/** Shortest gap between two polls when a new signature arrives, in ms. */
const NEW_SIGNATURE_GAP_MS = 20
/** getSignatureStatuses takes at most 256 signatures per call. */
const MAX_BATCH = 256

/**
 * Waits for transactions to reach `confirmed` by polling `getSignatureStatuses`, one batched call
 * per tick for every signature being waited on (32 concurrent settles cost one RPC call per tick,
 * not 32). A signature still unknown once its blockhash is no longer valid can never land: it ends
 * as `expired` (checked with `isBlockhashValid`, then the status once more, so a transaction landing
 * in between is not missed). RPC errors are retried until the deadline.
 */
export class SignaturePoller {
  readonly #rpc: Rpc<GetSignatureStatusesApi & IsBlockhashValidApi>
  readonly #intervalMs: number
  readonly #now: () => number
  readonly #waiters = new Set<Waiter>()
  #running = false
  /** Ends the loop's sleep early (set while it sleeps). */
  #wake: (() => void) | undefined
  #lastPollAt = 0
  /** A signature arrived while a poll was under way: the next sleep is short. */
  #arrivedDuringPoll = false

  constructor(
    rpc: Rpc<GetSignatureStatusesApi & IsBlockhashValidApi>,
    options: { intervalMs: number; now: () => number },
  ) {
    this.#rpc = rpc
    this.#intervalMs = options.intervalMs
    this.#now = options.now
  }

  /** Waits until `signature` is confirmed, failed or expired, or `timeoutMs` passes. */
  wait(
    signature: Signature,
    options: { blockhash?: Blockhash | undefined; timeoutMs: number },
  ): Promise<SignatureOutcome> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        signature,
        blockhash: options.blockhash,
        deadline: this.#now() + options.timeoutMs,
        // Ends the wait even if an RPC call of the loop hangs past the deadline.
        backstop: setTimeout(
          () => this.#settle(waiter, { status: 'timeout' }),
          options.timeoutMs + this.#intervalMs,
        ),
        resolve,
      }
      this.#waiters.add(waiter)
      if (!this.#running) {
        this.#running = true
        // Let the other settles of this tick join the first batch.
        setImmediate(() => void this.#loop())
      } else if (this.#wake) {
        // A new signature is polled soon rather than a full interval later (fast clusters confirm
        // in one slot), with polls still at least NEW_SIGNATURE_GAP_MS apart.
        const wake = this.#wake
        this.#wake = undefined
        setTimeout(wake, Math.max(0, this.#lastPollAt + NEW_SIGNATURE_GAP_MS - this.#now()))
      } else {
        this.#arrivedDuringPoll = true
      }
    })
  }

  async #loop(): Promise<void> {
    while (this.#waiters.size > 0) {
      this.#lastPollAt = this.#now()
      this.#arrivedDuringPoll = false
      const waiters = [...this.#waiters]
      for (let i = 0; i < waiters.length; i += MAX_BATCH) {
        await this.#poll(waiters.slice(i, i + MAX_BATCH)).catch(() => undefined)
      }
      const now = this.#now()
      for (const waiter of this.#waiters) {
        if (now >= waiter.deadline) {
          this.#settle(waiter, { status: 'timeout' })
        }
      }
      if (this.#waiters.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(
            () => {
              this.#wake = undefined
              resolve()
            },
            this.#arrivedDuringPoll ? NEW_SIGNATURE_GAP_MS : this.#intervalMs,
          )
          this.#wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
    }
    this.#running = false
  }

  async #poll(waiters: Waiter[]): Promise<void> {
    const unknown = await this.#checkStatuses(waiters)
    // One isBlockhashValid per distinct blockhash; payments signed in the same second share one.
    const byBlockhash = new Map<Blockhash, Waiter[]>()
    for (const waiter of unknown) {
      if (waiter.blockhash) {
        byBlockhash.set(waiter.blockhash, [...(byBlockhash.get(waiter.blockhash) ?? []), waiter])
      }
    }
    const expired: Waiter[] = []
    for (const [blockhash, group] of byBlockhash) {
      const valid = await this.#rpc
        .isBlockhashValid(blockhash, { commitment: 'confirmed' })
        .send()
        .then(({ value }) => value)
        .catch(() => true)
      if (!valid) {
        expired.push(...group)
      }
    }
    if (expired.length > 0) {
      for (const waiter of await this.#checkStatuses(expired)) {
        this.#settle(waiter, { status: 'expired' })
      }
    }
  }

  // Resolves the waiters whose status is known; returns the ones still unknown (or not polled).
  async #checkStatuses(waiters: Waiter[]): Promise<Waiter[]> {
    let statuses: readonly ({ confirmationStatus: string | null; err: unknown } | null)[]
    try {
      const response = await this.#rpc.getSignatureStatuses(waiters.map((w) => w.signature)).send()
      statuses = response.value
    } catch {
      return []
    }
    return waiters.filter((waiter, index) => {
      const status = statuses[index]
      if (
        status &&
        (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')
      ) {
        this.#settle(waiter, status.err ? { status: 'failed', err: status.err } : { status: 'confirmed' })
        return false
      }
      // A processed transaction is in a block (possibly a minority fork): keep waiting, never expire it.
      return !status
    })
  }

  #settle(waiter: Waiter, outcome: SignatureOutcome): void {
    if (this.#waiters.delete(waiter)) {
      clearTimeout(waiter.backstop)
      waiter.resolve(outcome)
    }
  }
}
