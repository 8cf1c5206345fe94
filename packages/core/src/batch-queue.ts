// The queue under the EVM and Solana JSON-RPC transports: calls made in the same event-loop turn
// leave together as one batch request, bounded by count and bytes, with an optional cap on the
// requests in flight so that, under load, batches grow instead of requests.

/** Options of {@link createBatchQueue}. */
export type BatchQueueOptions<T> = {
  /** Most items per batch (at least 1). */
  maxItems: number
  /** Largest batch in bytes as `sizeOf` counts them, plus one per separator and two for brackets. */
  maxBytes: number
  /** Most batches out at once (default unbounded); items beyond wait and join the next batch. */
  maxInFlight?: number | undefined
  /** Size of one item in bytes (its JSON length). */
  sizeOf(item: T): number
  /** Sends one batch and settles each of its items; its own failure must be handled inside. */
  send(items: T[]): Promise<void>
}

export type BatchQueue<T> = {
  /** Queues an item; the batch leaves on the next turn of the event loop (`setImmediate`). */
  push(item: T): void
  /** From now on every item leaves alone (a node that refuses batches). */
  stopBatching(): void
}

/** Creates a {@link BatchQueue}. A batch always takes at least one item, however large. */
export function createBatchQueue<T>(options: BatchQueueOptions<T>): BatchQueue<T> {
  let maxItems = Math.max(1, options.maxItems)
  const maxInFlight = Math.max(1, options.maxInFlight ?? Number.POSITIVE_INFINITY)
  let queue: T[] = []
  let scheduled = false
  let inFlight = 0

  const schedule = () => {
    if (!scheduled && queue.length > 0 && inFlight < maxInFlight) {
      scheduled = true
      setImmediate(flush)
    }
  }

  const flush = () => {
    scheduled = false
    while (queue.length > 0 && inFlight < maxInFlight) {
      let end = 0
      let bytes = 2
      while (end < queue.length && end < maxItems) {
        const size = options.sizeOf(queue[end] as T) + 1
        if (end > 0 && bytes + size > options.maxBytes) {
          break
        }
        bytes += size
        end++
      }
      const items = queue.slice(0, end)
      queue = queue.slice(end)
      inFlight++
      void options.send(items).finally(() => {
        inFlight--
        schedule()
      })
    }
  }

  return {
    push(item) {
      queue.push(item)
      schedule()
    },
    stopBatching() {
      maxItems = 1
    },
  }
}
