/**
 * Batches calls into one `flush` (one SQL statement for many jobs, docs/jobs.md): a call's item
 * joins the next run of `flush`, which starts on the next turn of the event loop, or once the
 * current run has ended; so the items that arrive while one statement runs go together in the next.
 * `flush` returns one result per item, in order; each call settles with its own result, or with the
 * error of its run.
 */
export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let waiting: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = []
  let flushing = false
  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting
      waiting = []
      try {
        const results = await flush(batch.map((entry) => entry.item))
        batch.forEach((entry, index) => {
          entry.resolve(results[index] as R)
        })
      } catch (error) {
        for (const entry of batch) {
          entry.reject(error)
        }
      }
    }
    flushing = false
  }
  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject })
      if (!flushing) {
        flushing = true
        setImmediate(() => {
          void drain()
        })
      }
    })
}
