import { expect, test } from 'vitest'
import { createCoalescer } from './coalesce.js'

// A deferred "database": each run waits until the test releases it, so the order is the test's.
function gate() {
  let open: () => void = () => undefined
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

test('behavior: items arriving while a key runs wait and then run as one batch; other keys do not wait', async () => {
  const first = gate()
  const runs: string[][] = []
  const coalesce = createCoalescer<string, string>({
    one: async (item) => {
      runs.push([item])
      if (item === 'a1') {
        await first.opened
      }
      return `one:${item}`
    },
    many: async (items) => {
      runs.push(items)
      return items.map((item) => `many:${item}`)
    },
  })
  const a1 = coalesce('a', 'a1')
  const a2 = coalesce('a', 'a2')
  const a3 = coalesce('a', 'a3')
  const b1 = coalesce('b', 'b1')
  expect(await b1).toBe('one:b1')
  first.open()
  expect(await Promise.all([a1, a2, a3])).toEqual(['one:a1', 'many:a2', 'many:a3'])
  expect(runs).toEqual([['a1'], ['b1'], ['a2', 'a3']])
})

test('edge: a refused batch runs each item alone, so one item’s error is its own', async () => {
  const first = gate()
  const coalesce = createCoalescer<number, number>({
    one: async (item) => {
      if (item === 0) {
        await first.opened
      }
      if (item === 2) {
        throw new Error('insufficient')
      }
      return item * 10
    },
    many: async () => {
      throw new Error('batch refused')
    },
  })
  const answers = [0, 1, 2, 3].map((i) =>
    coalesce('k', i).then(
      (value) => ({ value }),
      (error: Error) => ({ error: error.message }),
    ),
  )
  first.open()
  expect(await Promise.all(answers)).toEqual([
    { value: 0 },
    { value: 10 },
    { error: 'insufficient' },
    { value: 30 },
  ])
})

test('edge: batches hold at most maxBatch items; the rest form the next batch', async () => {
  const first = gate()
  const sizes: number[] = []
  const coalesce = createCoalescer<number, number>({
    one: async (item) => {
      await first.opened
      return item
    },
    many: async (items) => {
      sizes.push(items.length)
      return items
    },
    maxBatch: 2,
  })
  const answers = Promise.all([0, 1, 2, 3, 4].map((i) => coalesce('k', i)))
  first.open()
  expect(await answers).toEqual([0, 1, 2, 3, 4])
  expect(sizes).toEqual([2, 2])
})
