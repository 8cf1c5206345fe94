import { describe, expect, it } from 'vitest'
import { createBatchQueue } from './batch-queue.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('createBatchQueue', () => {
  it('sends the items pushed in one turn as one batch, the next turn as another', async () => {
    const batches: string[][] = []
    const queue = createBatchQueue<string>({
      maxItems: 10,
      maxBytes: 1_000,
      sizeOf: (item) => item.length,
      send: async (items) => {
        batches.push(items)
      },
    })
    queue.push('a')
    queue.push('b')
    await turn()
    queue.push('c')
    await turn()
    expect(batches).toEqual([['a', 'b'], ['c']])
  })

  it('splits by count and by bytes, and a lone oversized item still leaves', async () => {
    const batches: string[][] = []
    const queue = createBatchQueue<string>({
      maxItems: 2,
      maxBytes: 12,
      sizeOf: (item) => item.length,
      send: async (items) => {
        batches.push(items)
      },
    })
    for (const item of ['aaaa', 'bbbb', 'c', 'dddd', 'eeee', 'xxxxxxxxxxxxxxxxxxxx']) {
      queue.push(item)
    }
    await turn()
    // Brackets 2 + 'aaaa' 5 + 'bbbb' 5 = 12 fits; then two items at most; 'eeee' and the 21 bytes of
    // the long one do not fit together, and the long one leaves alone.
    expect(batches).toEqual([['aaaa', 'bbbb'], ['c', 'dddd'], ['eeee'], ['xxxxxxxxxxxxxxxxxxxx']])
  })

  it('holds items while maxInFlight batches are out, then sends them together', async () => {
    const batches: number[][] = []
    const release: Array<() => void> = []
    const queue = createBatchQueue<number>({
      maxItems: 10,
      maxBytes: 1_000,
      maxInFlight: 1,
      sizeOf: () => 1,
      send: (items) => {
        batches.push(items)
        return new Promise<void>((resolve) => release.push(resolve))
      },
    })
    queue.push(1)
    await turn()
    queue.push(2)
    queue.push(3)
    await turn()
    expect(batches).toEqual([[1]])
    release[0]?.()
    await turn()
    await turn()
    expect(batches).toEqual([[1], [2, 3]])
  })

  it('sends items one by one after stopBatching', async () => {
    const batches: number[][] = []
    const queue = createBatchQueue<number>({
      maxItems: 10,
      maxBytes: 1_000,
      sizeOf: () => 1,
      send: async (items) => {
        batches.push(items)
      },
    })
    queue.stopBatching()
    queue.push(1)
    queue.push(2)
    await turn()
    expect(batches).toEqual([[1], [2]])
  })
})
