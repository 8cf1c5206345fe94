import { REASONS, type SettledOutcomeWrite, type SettleResponse } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { createFacilitator } from './create-facilitator.js'
import { createMemorySettlementStore } from './memory-settlement-store.js'
import type { CompleteSettlementParameters } from './settlement-store.js'
import { buildFakeRequest, createFakeScheme, type FakeConfirmation } from './testing/create-fake-scheme.js'

const v1Request = () => {
  const { paymentPayload, paymentRequirements: r } = buildFakeRequest()
  return {
    x402Version: 1,
    paymentPayload: {
      x402Version: 1,
      scheme: 'exact',
      network: 'base-sepolia',
      payload: paymentPayload.payload,
    },
    paymentRequirements: {
      scheme: 'exact',
      network: 'base-sepolia',
      maxAmountRequired: r.amount,
      resource: 'https://merchant.example/paid',
      description: 'paid',
      payTo: r.payTo,
      maxTimeoutSeconds: r.maxTimeoutSeconds,
      asset: r.asset,
      extra: r.extra,
    },
  } as const
}

/** A confirm() that answers from a script, then "confirmed". */
function scripted(...outcomes: FakeConfirmation[]) {
  return async () => outcomes.shift() ?? 'confirmed'
}

describe('createFacilitator', () => {
  test('default: verifies through the scheme of the network', async () => {
    const facilitator = createFacilitator({ schemes: [createFakeScheme()] })
    expect(await facilitator.verify(buildFakeRequest())).toEqual({
      isValid: true,
      payer: '0x00000000000000000000000000000000000000bb',
    })
    expect(await facilitator.verify(buildFakeRequest({ payload: { value: '1' } }))).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_payload_authorization_value_mismatch',
    })
  })

  test('behavior: unknown networks are invalid_network, unknown schemes unsupported_scheme', async () => {
    const facilitator = createFacilitator({ schemes: [createFakeScheme()] })
    const otherNetwork = buildFakeRequest({ requirements: { network: 'eip155:1' } })
    expect(await facilitator.verify(otherNetwork)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_network',
    })
    const upto = buildFakeRequest({ requirements: { scheme: 'upto' } })
    expect(await facilitator.verify(upto)).toMatchObject({
      isValid: false,
      invalidReason: 'unsupported_scheme',
    })
    const unknownPayload = buildFakeRequest({ payload: { kind: 'other' } })
    expect(await facilitator.settle(unknownPayload)).toEqual({
      success: false,
      errorReason: 'unsupported_scheme',
      errorMessage: expect.any(String),
      transaction: '',
      network: 'eip155:84532',
    })
    const v1 = v1Request()
    const v1Unknown = {
      ...v1,
      paymentPayload: { ...v1.paymentPayload, network: 'nowhere' },
      paymentRequirements: { ...v1.paymentRequirements, network: 'nowhere' },
    }
    expect(await facilitator.settle(v1Unknown)).toMatchObject({
      success: false,
      errorReason: 'invalid_network',
    })
  })

  test('behavior: routes each payload to the scheme that can handle it', async () => {
    const eip3009 = createFakeScheme()
    const permit2 = createFakeScheme({ name: 'permit2' })
    const facilitator = createFacilitator({ schemes: [eip3009, permit2] })
    await facilitator.settle(buildFakeRequest({ payload: { kind: 'permit2' } }))
    await facilitator.settle(buildFakeRequest({ payload: { nonce: '0x02' } }))
    expect(permit2.broadcasts).toHaveLength(1)
    expect(eip3009.broadcasts).toHaveLength(1)
  })

  test('behavior: a v1 request is normalized and answered', async () => {
    const scheme = createFakeScheme()
    const facilitator = createFacilitator({ schemes: [scheme] })
    expect(await facilitator.verify(v1Request())).toMatchObject({ isValid: true })
    expect(await facilitator.settle(v1Request())).toMatchObject({ success: true, network: 'eip155:84532' })
  })

  test('behavior: 50 concurrent settles of one payment broadcast once; one is answered the success, 49 are refused', async () => {
    const scheme = createFakeScheme({ confirmDelayMs: 20 })
    const facilitator = createFacilitator({ schemes: [scheme] })
    const results = await Promise.all(
      Array.from({ length: 50 }, () => facilitator.settle(buildFakeRequest())),
    )
    expect(scheme.broadcasts).toHaveLength(1)
    const successes = results.filter((r) => r.success)
    expect(successes.map((r) => r.transaction)).toEqual(scheme.broadcasts)
    expect(results.filter((r) => r.errorReason === REASONS.duplicateSettlement)).toHaveLength(49)
    // A later settle of the settled payment is another request: refused, the chain untouched.
    const again = await facilitator.settle(buildFakeRequest())
    expect(again).toMatchObject({ success: false, errorReason: REASONS.duplicateSettlement, transaction: '' })
    expect(scheme.broadcasts).toHaveLength(1)
  })

  test('behavior: prepareSettle runs beside the claim and reaches settle, but never on a re-await', async () => {
    const base = createFakeScheme({ confirm: scripted('timeout') })
    const seen: unknown[] = []
    let prepares = 0
    let releaseClaim: () => void = () => {}
    const store = createMemorySettlementStore()
    const claim = store.claim.bind(store)
    // The claim waits until prepareSettle has started: the two must overlap.
    store.claim = async (parameters) => {
      await new Promise<void>((resolve) => {
        releaseClaim = resolve
        if (prepares > 0) {
          resolve()
        }
      })
      return claim(parameters)
    }
    const scheme = {
      ...base,
      prepareSettle: async () => {
        prepares += 1
        releaseClaim()
        return { checked: prepares }
      },
      settle: (...args: Parameters<typeof base.settle>) => {
        seen.push(args[2].prepared)
        return base.settle(...args)
      },
    }
    const facilitator = createFacilitator({ schemes: [scheme], store })
    const first = await facilitator.settle(buildFakeRequest())
    expect(first).toMatchObject({ errorReason: 'settlement_pending' })
    // The retry finds the broadcast transaction: it only re-awaits, so no prepared checks.
    expect(await facilitator.settle(buildFakeRequest())).toMatchObject({ success: true })
    expect(seen).toEqual([{ checked: 1 }, undefined])
  })

  test('behavior: the same key with other requirements is a duplicate, not a replay', async () => {
    const facilitator = createFacilitator({ schemes: [createFakeScheme()] })
    expect(await facilitator.settle(buildFakeRequest())).toMatchObject({ success: true })
    const replay = buildFakeRequest({ requirements: { payTo: '0x00000000000000000000000000000000000000cc' } })
    expect(await facilitator.settle(replay)).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
      transaction: '',
    })
  })

  test('behavior: a failure before broadcast is answered and stays retryable', async () => {
    const scheme = createFakeScheme()
    const facilitator = createFacilitator({ schemes: [scheme] })
    const unfunded = buildFakeRequest({ payload: { from: '0x0' } })
    expect(await facilitator.settle(unfunded)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
    })
    expect(await facilitator.settle(unfunded)).toMatchObject({ success: false })
    expect(scheme.broadcasts).toHaveLength(0)
  })

  test('behavior: a timed-out confirmation is pending, and the retry re-awaits without re-sending', async () => {
    const scheme = createFakeScheme({ confirm: scripted('timeout') })
    const facilitator = createFacilitator({ schemes: [scheme] })
    const first = await facilitator.settle(buildFakeRequest())
    expect(first).toMatchObject({ success: false, errorReason: 'settlement_pending' })
    expect(first.transaction).toBe(scheme.broadcasts[0])
    const second = await facilitator.settle(buildFakeRequest())
    expect(second).toMatchObject({ success: true, transaction: first.transaction })
    expect(scheme.broadcasts).toHaveLength(1)
    expect(scheme.reawaits).toEqual([first.transaction])
  })

  test('behavior: a reverted transaction is a final failure with its hash', async () => {
    const scheme = createFakeScheme({ confirm: scripted('reverted') })
    const facilitator = createFacilitator({ schemes: [scheme] })
    const first = await facilitator.settle(buildFakeRequest())
    expect(first).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_transaction_failed' })
    expect(await facilitator.settle(buildFakeRequest())).toEqual(first)
    expect(scheme.broadcasts).toHaveLength(1)
  })

  test('behavior: a scheme that throws after broadcast leaves the settlement pending for reconciliation', async () => {
    let calls = 0
    const scheme = createFakeScheme({
      confirm: async () => {
        calls += 1
        if (calls === 1) {
          throw new Error('rpc down')
        }
        return 'confirmed'
      },
    })
    const store = createMemorySettlementStore()
    const facilitator = createFacilitator({ schemes: [scheme], store })
    const first = await facilitator.settle(buildFakeRequest())
    expect(first).toMatchObject({ success: false, errorReason: 'settlement_pending' })
    expect(first.transaction).toMatch(/^0x/)
    expect(await facilitator.reconcilePending()).toEqual({
      checked: 1,
      settled: 1,
      failed: 0,
      pending: 0,
      abandoned: 0,
      skipped: 0,
    })
    expect(await store.countByState()).toMatchObject({ settled: 1, pending: 0 })
    expect(scheme.broadcasts).toHaveLength(1)
  })

  test('behavior: a scheme that throws before broadcast is an unexpected_settle_error, retryable', async () => {
    const scheme = createFakeScheme()
    const throwing = {
      ...scheme,
      settle: async () => {
        throw new Error('boom')
      },
    }
    const facilitator = createFacilitator({ schemes: [throwing] })
    expect(await facilitator.settle(buildFakeRequest())).toMatchObject({
      success: false,
      errorReason: 'unexpected_settle_error',
      // The thrown text stays in the log (docs/security.md "Operational endpoints and error details").
      errorMessage: 'unexpected error while settling; the details are in the facilitator log',
    })
    const retried = createFacilitator({ schemes: [scheme] })
    expect(await retried.settle(buildFakeRequest())).toMatchObject({ success: true })
  })

  test('behavior: reconcile re-awaits several pending settlements side by side', async () => {
    let phase: 'send' | 'reconcile' = 'send'
    let waiting = 0
    let openGate = () => {}
    const gate = new Promise<void>((resolve) => {
      openGate = resolve
    })
    // During reconciliation every re-await blocks until all four run at once: a one-at-a-time
    // reconciler would never finish.
    const scheme = createFakeScheme({
      confirm: async () => {
        if (phase === 'send') {
          return 'timeout'
        }
        waiting += 1
        if (waiting === 4) {
          openGate()
        }
        await gate
        return 'confirmed'
      },
    })
    const facilitator = createFacilitator({ schemes: [scheme] })
    for (const nonce of ['0x1', '0x2', '0x3', '0x4']) {
      expect(await facilitator.settle(buildFakeRequest({ payload: { nonce } }))).toMatchObject({
        errorReason: 'settlement_pending',
      })
    }
    phase = 'reconcile'
    expect(await facilitator.reconcilePending({ concurrency: 4 })).toMatchObject({ checked: 4, settled: 4 })
    expect(scheme.broadcasts).toHaveLength(4)
    expect(scheme.reawaits).toHaveLength(4)
  })

  test('behavior: reconcile releases claims whose process died before broadcasting', async () => {
    const store = createMemorySettlementStore()
    const scheme = createFakeScheme()
    const { paymentPayload, paymentRequirements } = buildFakeRequest()
    await store.claim({
      key: 'eip3009:eip155:84532:dead:0x01',
      scheme: 'eip3009',
      network: 'eip155:84532',
      fingerprint: 'f',
      paymentPayload,
      paymentRequirements,
      owner: 'dead-process',
      now: 0,
      leaseMs: 1000,
    })
    const facilitator = createFacilitator({ schemes: [scheme], store })
    expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, abandoned: 1 })
    expect(await store.get('eip3009:eip155:84532:dead:0x01')).toMatchObject({
      state: 'failed',
      result: { errorReason: 'unexpected_settle_error' },
    })
    expect(scheme.broadcasts).toHaveLength(0)
  })

  test('behavior: health is degraded, and metrics still scrape, when balances cannot be read', async () => {
    const facilitator = createFacilitator({
      schemes: [createFakeScheme()],
      getBalances: () => Promise.reject(new Error('HTTP request failed.\nURL: http://rpc')),
    })
    expect(await facilitator.getHealth()).toMatchObject({
      status: 'degraded',
      balances: [],
      balanceError: 'HTTP request failed.',
    })
    expect(await facilitator.metrics.registry.metrics()).toContain('tollgate_facilitator_settlements')
  })

  test('behavior: counts outcomes in metrics and reports health', async () => {
    const facilitator = createFacilitator({
      schemes: [createFakeScheme()],
      getBalances: async () => [
        {
          network: 'eip155:84532',
          address: '0xfee',
          symbol: 'ETH',
          balance: 1_500_000_000_000_000_000n,
          decimals: 18,
        },
      ],
    })
    await facilitator.verify(buildFakeRequest())
    await facilitator.settle(buildFakeRequest())
    await facilitator.settle(buildFakeRequest({ requirements: { network: 'eip155:1' } }))
    const text = await facilitator.metrics.registry.metrics()
    expect(text).toContain(
      'tollgate_facilitator_verify_total{network="eip155:84532",scheme="eip3009",outcome="valid",reason=""} 1',
    )
    expect(text).toContain(
      'tollgate_facilitator_settle_total{network="unknown",scheme="unknown",outcome="failure",reason="invalid_network"} 1',
    )
    expect(text).toContain(
      'tollgate_facilitator_signer_balance{network="eip155:84532",address="0xfee",symbol="ETH"} 1.5',
    )
    expect(text).toContain('tollgate_facilitator_settlements{state="settled"} 1')
    expect(await facilitator.getHealth()).toEqual({
      status: 'ok',
      settlements: { claimed: 0, broadcast: 0, pending: 0, settled: 1, failed: 0 },
      balances: [
        { network: 'eip155:84532', address: '0xfee', symbol: 'ETH', balance: '1.500000000000000000' },
      ],
    })
  })
})

describe('createFacilitator: the outcome write handed to onSettled (SettleOptions.database)', () => {
  const database = { name: 'the shared handle' }
  /** A memory store on `database`: its "query" is the parameters, which a hook writes by `complete`. */
  function joinableStore() {
    const store = createMemorySettlementStore()
    const complete = store.complete.bind(store)
    const writes: string[] = []
    store.complete = async (parameters) => {
      writes.push('facilitator')
      return complete(parameters)
    }
    const joinable = {
      database,
      completeQuery: (parameters: CompleteSettlementParameters) => ({ parameters }),
      completeManyQuery: (list: readonly CompleteSettlementParameters[]) => ({ list }),
    }
    const runQuery = async (query: unknown) => {
      writes.push('hook')
      return complete((query as { parameters: CompleteSettlementParameters }).parameters)
    }
    /** Runs a `queryWith` query: the keys whose owner still held them, as its rows would say. */
    const runManyQuery = async (query: unknown) => {
      writes.push('hook, many')
      const stored: string[] = []
      for (const parameters of (query as { list: CompleteSettlementParameters[] }).list) {
        if (await complete(parameters)) {
          stored.push(parameters.key)
        }
      }
      return stored
    }
    return { store: Object.assign(store, { joinable }), writes, runQuery, runManyQuery }
  }

  test('default: a hook on the store’s database runs the write itself; the facilitator sends none', async () => {
    const { store, writes, runQuery } = joinableStore()
    const facilitator = createFacilitator({ schemes: [createFakeScheme()], store })
    const result = await facilitator.settle(buildFakeRequest(), {
      database,
      onSettled: async (_result, outcome) => {
        outcome?.written(await runQuery(outcome.query))
      },
    })
    expect(result.success).toBe(true)
    expect(writes).toEqual(['hook'])
    expect(await store.countByState()).toMatchObject({ settled: 1, broadcast: 0 })
  })

  test('behavior: another database, or none, gets no write: the facilitator sends it before the hook runs', async () => {
    for (const options of [{ database: { name: 'another handle' } }, {}]) {
      const { store, writes } = joinableStore()
      const facilitator = createFacilitator({ schemes: [createFakeScheme()], store })
      const offered: unknown[] = []
      await facilitator.settle(buildFakeRequest(), {
        ...options,
        onSettled: async (_result, outcome) => {
          offered.push(outcome)
          writes.push('hook ran')
        },
      })
      expect(offered).toEqual([undefined])
      expect(writes).toEqual(['facilitator', 'hook ran'])
    }
  })

  test('behavior: a released write is sent at once, while the hook still runs', async () => {
    const { store, writes } = joinableStore()
    const facilitator = createFacilitator({ schemes: [createFakeScheme()], store })
    await facilitator.settle(buildFakeRequest(), {
      database,
      onSettled: async (_result, outcome) => {
        outcome?.release()
        await new Promise((resolve) => setTimeout(resolve, 20))
        writes.push('hook done')
      },
    })
    expect(writes).toEqual(['facilitator', 'hook done'])
    expect(await store.countByState()).toMatchObject({ settled: 1 })
  })

  test('edge: a hook that ends, or throws, having neither written nor released it gets it written after', async () => {
    const { store, writes } = joinableStore()
    const facilitator = createFacilitator({ schemes: [createFakeScheme()], store })
    const quiet = await facilitator.settle(buildFakeRequest({ payload: { nonce: '0x01' } }), {
      database,
      onSettled: async () => {
        writes.push('hook done')
      },
    })
    expect(quiet.success).toBe(true)
    const failing = facilitator.settle(buildFakeRequest({ payload: { nonce: '0x02' } }), {
      database,
      onSettled: async () => {
        writes.push('hook threw')
        throw new Error('the hook failed')
      },
    })
    await expect(failing).rejects.toThrow('the hook failed')
    expect(writes).toEqual(['hook done', 'facilitator', 'hook threw', 'facilitator'])
    expect(await store.countByState()).toMatchObject({ settled: 2, broadcast: 0 })
  })

  test('edge: a hook holding the write past the lease: another facilitator takes over, re-awaits, stores; only it answers the success', async () => {
    const { store, writes, runQuery } = joinableStore()
    const scheme = createFakeScheme()
    const first = createFacilitator({ schemes: [scheme], store, leaseMs: 50 })
    const second = createFacilitator({ schemes: [scheme], store, leaseMs: 50 })
    let taken: Promise<SettleResponse> | undefined
    let heldStored: boolean | undefined
    const held = first.settle(buildFakeRequest(), {
      database,
      onSettled: async (_result, outcome) => {
        // The heartbeat stopped when the scheme returned: wait out the lease, let the other take over.
        await new Promise((resolve) => setTimeout(resolve, 120))
        taken = second.settle(buildFakeRequest())
        await taken
        heldStored = await runQuery(outcome?.query)
        outcome?.written(heldStored)
      },
    })
    const [mine, theirs] = [await held, await (taken as Promise<SettleResponse>)]
    // One payment, one delivery: the settle that stored the outcome is answered the success, the
    // one whose claim was taken over is refused.
    expect([mine.errorReason, theirs.success]).toEqual([REASONS.duplicateSettlement, true])
    expect([scheme.broadcasts.length, scheme.reawaits]).toEqual([1, [theirs.transaction]])
    // The other facilitator stored the outcome; the held write found the row no longer ours.
    expect(writes).toEqual(['facilitator', 'hook'])
    expect(heldStored).toBe(false)
    expect(await store.countByState()).toMatchObject({ settled: 1, broadcast: 0, claimed: 0 })
  })

  test('behavior: hooks of concurrent settles write their outcomes together through queryWith', async () => {
    const { store, writes, runManyQuery } = joinableStore()
    const facilitator = createFacilitator({ schemes: [createFakeScheme()], store })
    // Both hooks hand their write to one place; the second to arrive runs them as one query.
    const held: SettledOutcomeWrite[] = []
    let release: () => void = () => {}
    const bothHeld = new Promise<void>((resolve) => {
      release = resolve
    })
    const onSettled = async (_result: SettleResponse, outcome?: SettledOutcomeWrite) => {
      if (!outcome) {
        throw new Error('no outcome write handed over')
      }
      held.push(outcome)
      if (held.length < 2) {
        return bothHeld
      }
      const [head, ...rest] = held as [SettledOutcomeWrite, ...SettledOutcomeWrite[]]
      const keys = new Set(await runManyQuery(head.queryWith(rest)))
      for (const write of held) {
        write.written(keys.has(write.key))
      }
      release()
    }
    const results = await Promise.all(
      ['0x01', '0x02'].map((nonce) =>
        facilitator.settle(buildFakeRequest({ payload: { nonce } }), { database, onSettled }),
      ),
    )
    expect(results.map((r) => r.success)).toEqual([true, true])
    expect(new Set(held.map((w) => w.key)).size).toBe(2)
    expect(writes).toEqual(['hook, many'])
    expect(await store.countByState()).toMatchObject({ settled: 2, broadcast: 0 })
  })

  test('edge: queryWith refuses a write another store handed over', async () => {
    const facilitators = [joinableStore(), joinableStore()].map(({ store }) =>
      createFacilitator({ schemes: [createFakeScheme()], store }),
    )
    const writes = await Promise.all(
      facilitators.map(
        (facilitator) =>
          new Promise<SettledOutcomeWrite>((resolve) => {
            void facilitator.settle(buildFakeRequest(), {
              database,
              onSettled: async (_result, outcome) => {
                if (outcome) {
                  resolve(outcome)
                  outcome.release()
                }
              },
            })
          }),
      ),
    )
    const [mine, theirs] = writes as [SettledOutcomeWrite, SettledOutcomeWrite]
    expect(() => mine.queryWith([theirs])).toThrow(/another settlement store/)
    expect(mine.queryWith([])).toEqual({ list: [expect.objectContaining({ key: mine.key })] })
  })

  // A hook whose outcome write found the key taken over: another holder (a reconciler when
  // `delivered` is false, a settle answered the success otherwise) stored the success first.
  async function settleTakenOver(delivered: boolean | undefined) {
    const { store, writes } = joinableStore()
    const facilitator = createFacilitator({ schemes: [createFakeScheme()], store })
    let key = ''
    const result = await facilitator.settle(buildFakeRequest(), {
      database,
      onSettled: async (settled, outcome) => {
        key = outcome?.key ?? ''
        const row = await store.get(key)
        await store.complete({
          key,
          owner: row?.owner ?? '',
          state: 'settled',
          result: settled,
          transaction: settled.transaction,
          ...(delivered === undefined ? {} : { delivered }),
          now: Date.now(),
        })
        outcome?.written(false)
      },
    })
    return { result, row: await store.get(key), writes }
  }

  test('edge: a write that found the claim taken over (stored false) answers the success once the reconciler stored it undelivered', async () => {
    const { result, row, writes } = await settleTakenOver(false)
    expect(result.success).toBe(true)
    expect(row).toMatchObject({ state: 'settled', delivered: true })
    // The stand-in reconciler's write only: the lost one is not written again.
    expect(writes).toEqual(['facilitator'])
  })

  test('edge: a write that found the claim taken over by a settle that was answered the success is refused', async () => {
    const { result } = await settleTakenOver(undefined)
    expect(result).toMatchObject({ success: false, errorReason: REASONS.duplicateSettlement })
  })
})
