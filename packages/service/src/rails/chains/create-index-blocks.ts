import { sql } from 'kysely'
import type { Db } from '../types.js'

/** Options of {@link createIndexBlocks}. */
export type IndexBlocksOptions = {
  /** Indexes reserved per counter update (default 64); 1 turns blocks off. */
  blockSize?: number
  /** Told about a reservation that failed (the next allocation falls back to its own increment). */
  onError?: (error: unknown) => void
}

/** Deposit-address indexes reserved ahead per branch (see {@link createIndexBlocks}). */
export type IndexBlocks = {
  /**
   * An index of `branch` whose reservation has committed, handed out once by this process, or
   * undefined when none is ready (always, with blocks of 1). Starts a reservation when the branch
   * runs low.
   */
  take(branch: string): number | undefined
  /**
   * An index of `branch` as {@link IndexBlocks.take}, waiting for a reservation when none is ready;
   * undefined with blocks of 1 (blocks off: the allocation takes the counter's next in its transaction).
   */
  next(branch: string): Promise<number | undefined>
  /** Reserves a block of `branch` now (or joins the reservation under way). */
  reserve(branch: string): Promise<void>
}

type Range = { next: number; end: number }

const defaultBlockSize = 64

/**
 * Reserves `address_counters` indexes in blocks, each by one counter update committed on its own on
 * `db` (the root handle, never a caller's transaction), and hands them out from memory. An allocation
 * then takes no lock on the counter row: with the increment in the caller's transaction, every
 * POST /payments of a branch waited for the previous one to commit (docs/sessions.md "Benchmark").
 * An index is handed out once: the counter has moved past the block before any of it is used, so
 * other processes reserve other blocks, and what a process did not use when it stops is a gap,
 * never reused. A rolled-back allocation loses its index the same way.
 */
export function createIndexBlocks(db: Db, options: IndexBlocksOptions = {}): IndexBlocks {
  const blockSize = options.blockSize ?? defaultBlockSize
  const ranges = new Map<string, Range[]>()
  const inFlight = new Map<string, Promise<void>>()
  const remaining = (branch: string) =>
    (ranges.get(branch) ?? []).reduce((sum, range) => sum + range.end - range.next, 0)
  const reserve = (branch: string): Promise<void> => {
    const running = inFlight.get(branch)
    if (running) {
      return running
    }
    const reservation = reserveBlock(db, branch, blockSize)
      .then((range) => {
        ranges.set(branch, [...(ranges.get(branch) ?? []), range])
      })
      .finally(() => inFlight.delete(branch))
    inFlight.set(branch, reservation)
    return reservation
  }
  const take = (branch: string): number | undefined => {
    if (blockSize <= 1) {
      return undefined
    }
    // Refill at half a block left, so a steady stream of allocations never finds the branch empty.
    if (remaining(branch) <= blockSize / 2 && !inFlight.has(branch)) {
      reserve(branch).catch((error: unknown) => options.onError?.(error))
    }
    const queue = ranges.get(branch) ?? []
    const range = queue[0]
    if (!range) {
      return undefined
    }
    const index = range.next
    range.next += 1
    if (range.next >= range.end) {
      queue.shift()
    }
    return index
  }
  return {
    take,
    next: async (branch) => {
      if (blockSize <= 1) {
        return undefined
      }
      for (;;) {
        const index = take(branch)
        if (index !== undefined) {
          return index
        }
        await reserve(branch)
      }
    },
    reserve,
  }
}

async function reserveBlock(db: Db, branch: string, size: number): Promise<Range> {
  const row = await db
    .insertInto('address_counters')
    .values({ branch, next_index: BigInt(size) })
    .onConflict((oc) =>
      oc.column('branch').doUpdateSet({ next_index: sql`address_counters.next_index + ${BigInt(size)}` }),
    )
    .returning('next_index')
    .executeTakeFirstOrThrow()
  const end = Number(row.next_index)
  return { next: end - size, end }
}
