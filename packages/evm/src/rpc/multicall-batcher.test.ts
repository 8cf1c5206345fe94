import {
  type Address,
  decodeFunctionData,
  encodeFunctionResult,
  getAddress,
  type Hex,
  hexToString,
  multicall3Abi,
  toHex,
} from 'viem'
import { describe, expect, it } from 'vitest'
import {
  MulticallBatcher,
  type MulticallCall,
  type MulticallClient,
  type MulticallResult,
} from './multicall-batcher.js'

// A toy token behind a fake aggregate3: calls are `balance:<who>` and `move:<from>:<to>:<amount>`,
// and a move's effect is visible to the calls after it in the same eth_call, as on a real node.
const TOKEN: Address = getAddress('0x00000000000000000000000000000000000000aa')
const PAYER_A = '0x000000000000000000000000000000000000000a'
const PAYER_B = '0x000000000000000000000000000000000000000b'
const MERCHANT = '0x00000000000000000000000000000000000000cc'

function createToyChain(balances: Record<string, bigint>) {
  const sent: MulticallCall[][] = []
  let failing = false
  const client: MulticallClient = {
    getCode: async () => '0x01',
    call: async ({ data }) => {
      if (failing) {
        throw new Error('node down')
      }
      const { args } = decodeFunctionData({ abi: multicall3Abi, data: data as Hex })
      const calls = (args?.[0] ?? []) as readonly MulticallCall[]
      sent.push(calls.map((c) => ({ target: c.target, callData: c.callData })))
      const state = new Map(Object.entries(balances))
      const results = calls.map((c): MulticallResult => {
        const [op, from = '', to = '', amount = '0'] = hexToString(c.callData).split(':')
        const balance = state.get(from) ?? 0n
        if (op === 'balance') {
          return { success: true, returnData: toHex(balance, { size: 32 }) }
        }
        if (balance < BigInt(amount)) {
          return { success: false, returnData: '0x' }
        }
        state.set(from, balance - BigInt(amount))
        state.set(to, (state.get(to) ?? 0n) + BigInt(amount))
        return { success: true, returnData: '0x' }
      })
      return {
        data: encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: results }),
      }
    },
  }
  return {
    client,
    sent,
    fail: () => {
      failing = true
    },
  }
}

const call = (text: string): MulticallCall => ({ target: TOKEN, callData: toHex(text) })

/** A verify's calls: the payer's balance, then the simulated move of `amount` to `to`. */
const payment = (from: string, amount: bigint, to = MERCHANT) => [
  call(`balance:${from}`),
  call(`move:${from}:${to}:${amount}`),
]

// A verify's verdict: balance covers the amount and the simulated move succeeded.
const covers = (amount: bigint) => (results: readonly MulticallResult[]) =>
  results[1]?.success === true && BigInt(results[0]?.returnData ?? '0x0') >= amount

describe('MulticallBatcher', () => {
  it('sends the calls of payments from different payers queued together in one eth_call', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n, [PAYER_B]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    const [a, b] = await Promise.all([
      batcher.run(payment(PAYER_A, 5n), { conflict: { debit: PAYER_A, credit: MERCHANT } }),
      batcher.run(payment(PAYER_B, 5n), { conflict: { debit: PAYER_B, credit: MERCHANT } }),
    ])
    expect(chain.sent).toHaveLength(1)
    expect(a?.[1]?.success).toBe(true)
    expect(b?.[1]?.success).toBe(true)
  })

  it('lets payments of one payer share an eth_call when each accepts its shared results', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    const results = await Promise.all(
      [1n, 2n, 3n].map((amount) =>
        batcher.run(payment(PAYER_A, amount), {
          conflict: { debit: PAYER_A, credit: MERCHANT },
          acceptShared: covers(amount),
        }),
      ),
    )
    expect(chain.sent).toHaveLength(1)
    expect(results.map((r) => covers(0n)(r))).toEqual([true, true, true])
  })

  it('asks again alone for a shared payment whose failure an earlier simulated debit may have caused', async () => {
    // 7 + 5 > 10: in one eth_call the second move fails, yet alone (against the real state) it passes.
    const chain = createToyChain({ [PAYER_A]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    const [first, second] = await Promise.all(
      [7n, 5n].map((amount) =>
        batcher.run(payment(PAYER_A, amount), {
          conflict: { debit: PAYER_A, credit: MERCHANT },
          acceptShared: covers(amount),
        }),
      ),
    )
    expect(chain.sent).toHaveLength(2)
    expect(chain.sent[1]).toEqual(payment(PAYER_A, 5n))
    expect(covers(7n)(first ?? [])).toBe(true)
    expect(covers(5n)(second ?? [])).toBe(true)
  })

  it('keeps a payment that cannot judge shared results apart from others of its payer', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    await Promise.all([
      batcher.run(payment(PAYER_A, 1n), { conflict: { debit: PAYER_A, credit: MERCHANT } }),
      batcher.run(payment(PAYER_A, 2n), { conflict: { debit: PAYER_A, credit: MERCHANT } }),
    ])
    expect(chain.sent).toHaveLength(2)
  })

  it('never lets a payment be funded by an earlier simulated credit in the same eth_call', async () => {
    // B has nothing; A's simulated move credits B. Sharing would make B's payment look funded.
    const chain = createToyChain({ [PAYER_A]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    const [, fromB] = await Promise.all([
      batcher.run(payment(PAYER_A, 5n, PAYER_B), {
        conflict: { debit: PAYER_A, credit: PAYER_B },
        acceptShared: covers(5n),
      }),
      batcher.run(payment(PAYER_B, 5n), {
        conflict: { debit: PAYER_B, credit: MERCHANT },
        acceptShared: covers(5n),
      }),
    ])
    expect(chain.sent).toHaveLength(2)
    expect(covers(5n)(fromB ?? [])).toBe(false)
  })

  it('keeps an exclusive payment (one that deploys code) away from others of its payer', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    await Promise.all([
      batcher.run(payment(PAYER_A, 1n), {
        conflict: { debit: PAYER_A, credit: MERCHANT, exclusive: true },
        acceptShared: covers(1n),
      }),
      batcher.run(payment(PAYER_A, 2n), {
        conflict: { debit: PAYER_A, credit: MERCHANT },
        acceptShared: covers(2n),
      }),
    ])
    expect(chain.sent).toHaveLength(2)
  })

  it('sends one copy of identical calls queued together and answers each caller with it', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n })
    const batcher = new MulticallBatcher(chain.client)
    const options = { conflict: { debit: PAYER_A, credit: MERCHANT }, acceptShared: covers(6n) }
    const [a, b, c] = await Promise.all([
      batcher.run(payment(PAYER_A, 6n), options),
      batcher.run(payment(PAYER_A, 6n), options),
      batcher.run(payment(PAYER_A, 6n), options),
    ])
    expect(chain.sent).toEqual([payment(PAYER_A, 6n)])
    expect(a).toEqual(b)
    expect(b).toEqual(c)
    expect(covers(6n)(a ?? [])).toBe(true)
  })

  it('holds calls while maxInFlight eth_calls await the node, then sends them together', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n, [PAYER_B]: 10n })
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const slowClient: MulticallClient = {
      getCode: chain.client.getCode,
      call: async (args) => {
        await gate
        return chain.client.call(args)
      },
    }
    const batcher = new MulticallBatcher(slowClient, { maxInFlight: 1 })
    const first = batcher.run(payment(PAYER_A, 1n))
    await new Promise((resolve) => setImmediate(resolve))
    // The first eth_call is out: these three wait for it, then share one.
    const rest = [2n, 3n, 4n].map((amount) => batcher.run(payment(PAYER_B, amount)))
    await new Promise((resolve) => setImmediate(resolve))
    expect(chain.sent).toHaveLength(0)
    release()
    await Promise.all([first, ...rest])
    expect(chain.sent.map((calls) => calls.length)).toEqual([2, 6])
  })

  it('rejects every caller, twins included, with rpc_failed when the node fails', async () => {
    const chain = createToyChain({ [PAYER_A]: 10n })
    chain.fail()
    const batcher = new MulticallBatcher(chain.client)
    const runs = [1, 2].map(() => batcher.run(payment(PAYER_A, 1n)))
    for (const run of runs) {
      await expect(run).rejects.toMatchObject({ code: 'rpc_failed' })
    }
  })
})
