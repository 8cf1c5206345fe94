/** Options of {@link createCoalescer}. */
export type CoalescerOptions<T, R> = {
  /** Runs one item on its own: its answer (or error) is the item's. */
  one: (item: T) => Promise<R>
  /**
   * Runs several items of one key at once: an answer per item in order, or `undefined` (or an
   * error) when the batch as a whole was refused; each item then runs on its own through `one`.
   */
  many: (items: T[]) => Promise<R[] | undefined>
  /** Most items per batch (default 64). */
  maxBatch?: number
}

type Waiting<T, R> = { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }

/**
 * Coalesces concurrent work of one key (docs/payouts.md "Coalesced reserves", docs/rails.md "Batched
 * settlements"): the first item of a
 * key runs at once on its own; items that arrive while a key's work runs wait, and when it ends,
 * everything waiting at that moment runs as one batch (up to `maxBatch`), and so on until none waits.
 * So one key has one run at a time in this process, and a burst becomes a few batches. A refused
 * batch falls back to each item on its own, so every item still gets its own answer.
 */
export function createCoalescer<T, R>(options: CoalescerOptions<T, R>): (key: string, item: T) => Promise<R> {
  const maxBatch = options.maxBatch ?? 64
  const queues = new Map<string, Waiting<T, R>[]>()

  const runAlone = (w: Waiting<T, R>) => options.one(w.item).then(w.resolve, w.reject)

  const runBatch = async (batch: Waiting<T, R>[]) => {
    if (batch.length === 1) {
      return runAlone(batch[0] as Waiting<T, R>)
    }
    let answers: R[] | undefined
    try {
      answers = await options.many(batch.map((w) => w.item))
    } catch {
      answers = undefined
    }
    if (answers === undefined || answers.length !== batch.length) {
      await Promise.all(batch.map(runAlone))
      return
    }
    batch.forEach((w, i) => {
      w.resolve(answers[i] as R)
    })
  }

  const drain = async (key: string, first: Waiting<T, R>) => {
    const queue = queues.get(key) ?? []
    let batch = [first]
    while (batch.length > 0) {
      await runBatch(batch)
      batch = queue.splice(0, maxBatch)
    }
    queues.delete(key)
  }

  return (key, item) =>
    new Promise<R>((resolve, reject) => {
      const waiting = { item, resolve, reject }
      const queue = queues.get(key)
      if (queue) {
        queue.push(waiting)
        return
      }
      queues.set(key, [])
      void drain(key, waiting)
    })
}
