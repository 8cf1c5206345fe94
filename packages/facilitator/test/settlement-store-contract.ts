import { buildFakeRequest } from '@tollgate/facilitator/testing'
import { describe, expect, test } from 'vitest'
import type { ClaimSettlementParameters, SettlementStore } from '../src/settlement-store.js'

const T0 = 1_750_000_000_000
const LEASE = 10_000

/** Claim parameters for key `key` at `now`, as owner `owner`. */
export function buildClaim(overrides: Partial<ClaimSettlementParameters> = {}): ClaimSettlementParameters {
  const { paymentPayload, paymentRequirements } = buildFakeRequest()
  return {
    key: 'k1',
    scheme: 'eip3009',
    network: 'eip155:84532',
    fingerprint: 'fp1',
    paymentPayload,
    paymentRequirements,
    owner: 'a',
    now: T0,
    leaseMs: LEASE,
    ...overrides,
  }
}

const ok = { success: true, transaction: '0xt', network: 'eip155:84532' }

/** The behaviour every SettlementStore must have; run against each implementation. */
export function describeSettlementStoreContract(name: string, open: () => Promise<SettlementStore>): void {
  describe(`${name}: SettlementStore contract`, () => {
    test('default: first claim wins, a second claimant sees the held row', async () => {
      const store = await open()
      const first = await store.claim(buildClaim())
      const second = await store.claim(buildClaim({ owner: 'b', now: T0 + 1 }))
      expect(first.claimed).toBe(true)
      expect(first.record).toMatchObject({
        state: 'claimed',
        owner: 'a',
        attempts: 1,
        leaseUntil: T0 + LEASE,
      })
      expect(second.claimed).toBe(false)
      expect(second.record.owner).toBe('a')
      expect(second.record.paymentRequirements).toEqual(buildClaim().paymentRequirements)
    })

    test('behavior: concurrent claims of one key have exactly one winner', async () => {
      const store = await open()
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.claim(buildClaim({ owner: `o${i}` }))),
      )
      expect(results.filter((r) => r.claimed)).toHaveLength(1)
    })

    test('behavior: a success stored for its caller is delivered; deliver() takes it for nobody else', async () => {
      const store = await open()
      await store.claim(buildClaim())
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'settled',
        result: ok,
        transaction: '0xt',
        now: T0,
      })
      expect(await store.get('k1')).toMatchObject({ state: 'settled', delivered: true })
      expect(await store.deliver('k1', T0 + 1)).toBe(false)
    })

    test('behavior: a success stored undelivered (the reconciler) is taken by exactly one of concurrent callers', async () => {
      const store = await open()
      await store.claim(buildClaim())
      // Nothing to deliver before the row is settled.
      expect(await store.deliver('k1', T0)).toBe(false)
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'settled',
        result: ok,
        transaction: '0xt',
        delivered: false,
        now: T0,
      })
      expect(await store.get('k1')).toMatchObject({ state: 'settled', delivered: false })
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.deliver('k1', T0 + 1)))
      expect(taken.filter(Boolean)).toHaveLength(1)
      expect(await store.get('k1')).toMatchObject({ delivered: true })
    })

    test('behavior: writes are fenced by owner', async () => {
      const store = await open()
      await store.claim(buildClaim())
      expect(await store.recordBroadcast('k1', 'intruder', '0xbad', T0)).toBe(false)
      expect(await store.renew('k1', 'intruder', T0 + 99_999)).toBe(false)
      expect(await store.recordBroadcast('k1', 'a', '0xt', T0 + 5)).toBe(true)
      const stolen = await store.complete({
        key: 'k1',
        owner: 'x',
        state: 'settled',
        result: ok,
        transaction: '0xt',
        now: T0,
      })
      expect(stolen).toBe(false)
      expect(await store.get('k1')).toMatchObject({ state: 'broadcast', transaction: '0xt', owner: 'a' })
    })

    test('behavior: an expired lease is taken over and keeps the broadcast transaction', async () => {
      const store = await open()
      await store.claim(buildClaim())
      await store.recordBroadcast('k1', 'a', '0xt', T0 + 1)
      expect((await store.claim(buildClaim({ owner: 'b', now: T0 + LEASE - 1 }))).claimed).toBe(false)
      const takeover = await store.claim(buildClaim({ owner: 'b', now: T0 + LEASE }))
      expect(takeover.claimed).toBe(true)
      expect(takeover.record).toMatchObject({
        state: 'broadcast',
        transaction: '0xt',
        owner: 'b',
        attempts: 2,
      })
      expect(await store.recordBroadcast('k1', 'a', '0xother', T0 + LEASE)).toBe(false)
    })

    test('behavior: renew extends the lease', async () => {
      const store = await open()
      await store.claim(buildClaim())
      expect(await store.renew('k1', 'a', T0 + 3 * LEASE)).toBe(true)
      expect((await store.claim(buildClaim({ owner: 'b', now: T0 + 2 * LEASE }))).claimed).toBe(false)
    })

    test('behavior: a settled row is final and returns its result', async () => {
      const store = await open()
      await store.claim(buildClaim())
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'settled',
        result: ok,
        transaction: '0xt',
        now: T0 + 2,
      })
      const again = await store.claim(buildClaim({ owner: 'b', now: T0 + 10 * LEASE }))
      expect(again.claimed).toBe(false)
      expect(again.record).toMatchObject({ state: 'settled', result: ok, transaction: '0xt' })
      expect(again.record.owner).toBeUndefined()
    })

    test('behavior: a failure without a transaction is retryable, with one', async () => {
      const store = await open()
      const failed = { success: false, errorReason: 'x', transaction: '', network: 'eip155:84532' }
      await store.claim(buildClaim())
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'failed',
        result: failed,
        transaction: undefined,
        now: T0,
      })
      const retry = await store.claim(buildClaim({ owner: 'b', now: T0 + 1 }))
      expect(retry.claimed).toBe(true)
      expect(retry.record.state).toBe('claimed')
      expect(retry.record.result).toBeUndefined()
      await store.complete({
        key: 'k1',
        owner: 'b',
        state: 'failed',
        result: failed,
        transaction: '0xr',
        now: T0 + 2,
      })
      expect((await store.claim(buildClaim({ owner: 'c', now: T0 + 3 }))).claimed).toBe(false)
    })

    test('behavior: another payment under the same key is never taken over', async () => {
      const store = await open()
      await store.claim(buildClaim())
      const other = await store.claim(buildClaim({ owner: 'b', fingerprint: 'fp2', now: T0 + 10 * LEASE }))
      expect(other.claimed).toBe(false)
      expect(other.record.fingerprint).toBe('fp1')
    })

    test('behavior: pending rows are released, listed and taken over at once', async () => {
      const store = await open()
      const pending = { success: false, errorReason: 'settlement_pending', transaction: '0xt', network: 'n' }
      await store.claim(buildClaim())
      await store.claim(buildClaim({ key: 'k2', owner: 'a' }))
      await store.claim(buildClaim({ key: 'k3', owner: 'a' }))
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'pending',
        result: pending,
        transaction: '0xt',
        now: T0 + 1,
      })
      await store.complete({
        key: 'k3',
        owner: 'a',
        state: 'settled',
        result: ok,
        transaction: '0xt',
        now: T0 + 1,
      })
      expect((await store.listReconcilable(T0 + 1, 10)).map((r) => r.key)).toEqual(['k1'])
      expect((await store.listReconcilable(T0 + LEASE, 10)).map((r) => r.key).sort()).toEqual(['k1', 'k2'])
      expect(await store.countByState()).toEqual({
        claimed: 1,
        broadcast: 0,
        pending: 1,
        settled: 1,
        failed: 0,
      })
      const reawait = await store.claim(buildClaim({ owner: 'b', now: T0 + 2 }))
      expect(reawait).toMatchObject({ claimed: true, record: { state: 'pending', transaction: '0xt' } })
      expect(await store.listReconcilable(T0 + 2, 10)).toEqual([])
    })

    test('behavior: a reconciler that sends a dropped payment again records the new transaction over the old', async () => {
      const store = await open()
      const pending = {
        success: false,
        errorReason: 'settlement_pending',
        transaction: '0xold',
        network: 'n',
      }
      await store.claim(buildClaim())
      await store.recordBroadcast('k1', 'a', '0xold', T0 + 1)
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'pending',
        result: pending,
        transaction: '0xold',
        now: T0 + 2,
      })
      const reconciler = await store.claim(buildClaim({ owner: 'b', now: T0 + 3 }))
      expect(reconciler).toMatchObject({ claimed: true, record: { transaction: '0xold' } })
      expect(await store.recordBroadcast('k1', 'a', '0xstale', T0 + 4)).toBe(false)
      expect(await store.recordBroadcast('k1', 'b', '0xnew', T0 + 4)).toBe(true)
      expect(await store.get('k1')).toMatchObject({ state: 'pending', transaction: '0xnew', owner: 'b' })
      // The reconciler dies before storing the outcome: the next one re-awaits the new hash.
      const [stranded] = await store.listReconcilable(T0 + 3 + LEASE, 10)
      expect(stranded).toMatchObject({ key: 'k1', transaction: '0xnew' })
      const next = await store.claim(buildClaim({ owner: 'c', now: T0 + 3 + LEASE }))
      expect(next).toMatchObject({ claimed: true, record: { transaction: '0xnew' } })
      await store.complete({
        key: 'k1',
        owner: 'c',
        state: 'settled',
        result: { ...ok, transaction: '0xnew' },
        transaction: '0xnew',
        now: T0 + 4 + LEASE,
      })
      expect(await store.get('k1')).toMatchObject({ state: 'settled', transaction: '0xnew' })
    })

    test('behavior: a replacement swaps the transaction it recorded, by compare-and-set', async () => {
      const store = await open()
      const pending = { success: false, errorReason: 'settlement_pending', transaction: '0xa', network: 'n' }
      await store.claim(buildClaim())
      await store.recordBroadcast('k1', 'a', '0xa', T0 + 1)
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'pending',
        result: pending,
        transaction: '0xa',
        now: T0 + 2,
      })
      expect(await store.replaceTransaction({ key: 'k1', from: '0xother', to: '0xb', now: T0 + 3 })).toBe(
        false,
      )
      expect(await store.get('k1')).toMatchObject({ transaction: '0xa', updatedAt: T0 + 2 })
      expect(await store.replaceTransaction({ key: 'k1', from: '0xa', to: '0xb', now: T0 + 3 })).toBe(true)
      const swapped = await store.get('k1')
      expect(swapped).toMatchObject({
        state: 'pending',
        transaction: '0xb',
        result: pending,
        leaseUntil: T0 + 2,
        updatedAt: T0 + 3,
      })
      expect(swapped?.owner).toBeUndefined()
      // The old hash no longer matches: a stale replacement of it cannot undo the swap.
      expect(await store.replaceTransaction({ key: 'k1', from: '0xa', to: '0xc', now: T0 + 4 })).toBe(false)
      expect(await store.replaceTransaction({ key: 'k1', from: '0xb', to: '0xc', now: T0 + 4 })).toBe(true)
      expect(await store.get('k1')).toMatchObject({ state: 'pending', transaction: '0xc' })
      const reawait = await store.claim(buildClaim({ owner: 'b', now: T0 + 5 }))
      expect(reawait).toMatchObject({ claimed: true, record: { transaction: '0xc' } })
    })

    test('behavior: a replacement of a held row releases its holder', async () => {
      const store = await open()
      await store.claim(buildClaim())
      await store.recordBroadcast('k1', 'a', '0xa', T0 + 1)
      expect(await store.replaceTransaction({ key: 'k1', from: '0xa', to: '0xb', now: T0 + 5 })).toBe(true)
      const released = await store.get('k1')
      expect(released).toMatchObject({ state: 'broadcast', transaction: '0xb', leaseUntil: T0 + 5 })
      expect(released?.owner).toBeUndefined()
      // The holder started from 0xa: none of its later writes lands.
      expect(await store.recordBroadcast('k1', 'a', '0xz', T0 + 6)).toBe(false)
      expect(await store.renew('k1', 'a', T0 + 3 * LEASE)).toBe(false)
      const stale = await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'pending',
        result: { success: false, errorReason: 'settlement_pending', transaction: '0xa', network: 'n' },
        transaction: '0xa',
        now: T0 + 6,
      })
      expect(stale).toBe(false)
      expect((await store.listReconcilable(T0 + 6, 10)).map((r) => r.key)).toEqual(['k1'])
      const next = await store.claim(buildClaim({ owner: 'b', now: T0 + 6 }))
      expect(next).toMatchObject({ claimed: true, record: { state: 'broadcast', transaction: '0xb' } })
    })

    test('behavior: a final or missing row is never swapped', async () => {
      const store = await open()
      const failed = { success: false, errorReason: 'x', transaction: '0xr', network: 'eip155:84532' }
      await store.claim(buildClaim())
      await store.claim(buildClaim({ key: 'k2' }))
      await store.recordBroadcast('k1', 'a', '0xt', T0 + 1)
      await store.recordBroadcast('k2', 'a', '0xr', T0 + 1)
      await store.complete({
        key: 'k1',
        owner: 'a',
        state: 'settled',
        result: ok,
        transaction: '0xt',
        now: T0 + 2,
      })
      await store.complete({
        key: 'k2',
        owner: 'a',
        state: 'failed',
        result: failed,
        transaction: '0xr',
        now: T0 + 2,
      })
      expect(await store.replaceTransaction({ key: 'k1', from: '0xt', to: '0xb', now: T0 + 3 })).toBe(false)
      expect(await store.replaceTransaction({ key: 'k2', from: '0xr', to: '0xb', now: T0 + 3 })).toBe(false)
      expect(await store.replaceTransaction({ key: 'nope', from: '0xt', to: '0xb', now: T0 + 3 })).toBe(false)
      expect(await store.get('k1')).toMatchObject({ state: 'settled', transaction: '0xt', updatedAt: T0 + 2 })
      expect(await store.get('k2')).toMatchObject({ state: 'failed', transaction: '0xr', updatedAt: T0 + 2 })
      expect(await store.get('nope')).toBeUndefined()
    })

    test('behavior: get of an unknown key is undefined', async () => {
      const store = await open()
      expect(await store.get('nope')).toBeUndefined()
    })
  })
}
