import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { createFacilitator, type Facilitator } from '../src/create-facilitator.js'
import { openSettlementDatabase } from '../src/open-settlement-database.js'
import { createPostgresSettlementStore } from '../src/postgres-settlement-store.js'
import {
  buildFakeRequest,
  createFakeScheme,
  type FakeConfirmation,
} from '../src/testing/create-fake-scheme.js'
import { closeTestDatabases, type TestDatabase, testDatabaseKinds } from './test-databases.js'

afterAll(closeTestDatabases)

/** A confirmation that hangs until released: a process stuck (or killed) after its broadcast. */
function createHang() {
  let release: (outcome: FakeConfirmation) => void = () => {}
  const hung = new Promise<FakeConfirmation>((resolve) => {
    release = resolve
  })
  return { confirm: () => hung, release }
}

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (await check()) {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error('condition not reached')
}

// A clock far enough ahead that every lease taken "now" has run out: how a restarted process sees
// the claims of one that died, without the test sleeping through a real lease.
const later = () => Date.now() + 10 * 60_000

for (const kind of testDatabaseKinds) {
  describe(`exactly-once settlement on ${kind.name}`, () => {
    const opened: TestDatabase[] = []
    const facilitators: Facilitator[] = []
    afterEach(async () => {
      for (const facilitator of facilitators.splice(0)) {
        facilitator.close()
      }
      await Promise.all(opened.splice(0).map((database) => database.cleanup()))
    })
    const open = async () => {
      const database = await kind.open()
      opened.push(database)
      return database
    }
    const start = (facilitator: Facilitator) => {
      facilitators.push(facilitator)
      return facilitator
    }

    test('default: 50 concurrent settles of one payment broadcast once; one is answered the success, the others duplicate_settlement', async () => {
      const { db, schema } = await open()
      const scheme = createFakeScheme({ confirmDelayMs: 50 })
      const store = await createPostgresSettlementStore({ db, schema })
      const facilitator = start(createFacilitator({ schemes: [scheme], store }))
      const results = await Promise.all(
        Array.from({ length: 50 }, () => facilitator.settle(buildFakeRequest())),
      )
      expect(scheme.broadcasts).toHaveLength(1)
      expect(results.filter((r) => r.success).map((r) => r.transaction)).toEqual(scheme.broadcasts)
      expect(results.filter((r) => r.errorReason === 'duplicate_settlement')).toHaveLength(49)
      expect(await store.countByState()).toMatchObject({ settled: 1, claimed: 0, pending: 0 })
    })

    test('behavior: two facilitator instances on one database settle a payment once', async () => {
      const database = await open()
      const peerDb = await kind.openPeer(database)
      const schemeA = createFakeScheme({ confirmDelayMs: 100 })
      const schemeB = createFakeScheme({ confirmDelayMs: 100 })
      const a = start(
        createFacilitator({
          schemes: [schemeA],
          store: await createPostgresSettlementStore({ db: database.db, schema: database.schema }),
        }),
      )
      const b = start(
        createFacilitator({
          schemes: [schemeB],
          store: await createPostgresSettlementStore({ db: peerDb, schema: database.schema }),
        }),
      )
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).settle(buildFakeRequest())),
      )
      const broadcasts = [...schemeA.broadcasts, ...schemeB.broadcasts]
      expect(broadcasts).toHaveLength(1)
      // Across processes too, one payment is answered its success once.
      expect(results.filter((r) => r.success).map((r) => r.transaction)).toEqual(broadcasts)
      expect(results.filter((r) => r.errorReason === 'duplicate_settlement')).toHaveLength(39)
      if (peerDb !== database.db) {
        await peerDb.destroy()
      }
    })

    test('behavior: onSettled runs once, in the claim owner, beside the outcome write', async () => {
      const database = await open()
      const peerDb = await kind.openPeer(database)
      const storeA = await createPostgresSettlementStore({ db: database.db, schema: database.schema })
      // The outcome write waits until a hook has started: a hook run only after the write would
      // never start, and the settle would hang.
      let hookStarted: () => void = () => {}
      const started = new Promise<void>((resolve) => {
        hookStarted = resolve
      })
      const complete = storeA.complete.bind(storeA)
      storeA.complete = async (parameters) => {
        await started
        return complete(parameters)
      }
      const schemeA = createFakeScheme({ confirmDelayMs: 50 })
      const schemeB = createFakeScheme({ confirmDelayMs: 50 })
      const a = start(createFacilitator({ schemes: [schemeA], store: storeA }))
      const b = start(
        createFacilitator({
          schemes: [schemeB],
          store: await createPostgresSettlementStore({ db: peerDb, schema: database.schema }),
        }),
      )
      const calls: { caller: number; success: boolean; transaction: string }[] = []
      // Instance a claims first (b's callers start after a's claim), so the owner's write is gated.
      const first = a.settle(buildFakeRequest(), {
        onSettled: async (result) => {
          hookStarted()
          calls.push({ caller: 0, success: result.success, transaction: result.transaction })
        },
      })
      await waitFor(() => schemeA.broadcasts.length === 1)
      const others = Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).settle(buildFakeRequest(), {
          onSettled: async (result) => {
            hookStarted()
            calls.push({ caller: i + 1, success: result.success, transaction: result.transaction })
          },
        }),
      )
      const results = await Promise.all([first, ...others])
      expect(schemeA.broadcasts).toHaveLength(1)
      expect(schemeB.broadcasts).toEqual([])
      expect(results[0]).toMatchObject({ success: true, transaction: schemeA.broadcasts[0] })
      expect(results.slice(1).every((r) => r.errorReason === 'duplicate_settlement')).toBe(true)
      expect(calls).toEqual([{ caller: 0, success: true, transaction: schemeA.broadcasts[0] }])
      // A repeat is refused and never runs its hook.
      let repeated = 0
      const again = await b.settle(buildFakeRequest(), {
        onSettled: async () => {
          repeated += 1
        },
      })
      expect(again).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
      expect(repeated).toBe(0)
      if (peerDb !== database.db) {
        await peerDb.destroy()
      }
    })

    test('behavior: a failing onSettled rejects the settle, and the outcome is stored all the same', async () => {
      const { db, schema } = await open()
      const scheme = createFakeScheme()
      const store = await createPostgresSettlementStore({ db, schema })
      const facilitator = start(createFacilitator({ schemes: [scheme], store }))
      const failure = new Error('the credit failed')
      await expect(
        facilitator.settle(buildFakeRequest(), {
          onSettled: async () => {
            throw failure
          },
        }),
      ).rejects.toBe(failure)
      expect(await store.countByState()).toMatchObject({ settled: 1, claimed: 0, broadcast: 0 })
      const text = await facilitator.metrics.registry.metrics()
      expect(text).toContain('outcome="success",reason=""} 1')
      // The caller was answered an error, not the success: its retry takes the stored outcome
      // (nothing is sent again, and its hook does not run); a third settle is refused.
      let hooked = 0
      const again = await facilitator.settle(buildFakeRequest(), {
        onSettled: async () => {
          hooked += 1
        },
      })
      expect(again).toMatchObject({ success: true, transaction: scheme.broadcasts[0] })
      expect(scheme.broadcasts).toHaveLength(1)
      expect(hooked).toBe(0)
      expect(await facilitator.settle(buildFakeRequest())).toMatchObject({
        success: false,
        errorReason: 'duplicate_settlement',
      })
    })

    test('behavior: onSettled does not run for a pending or failed outcome', async () => {
      const { db, schema } = await open()
      const scheme = createFakeScheme({ confirm: async () => 'timeout' })
      const store = await createPostgresSettlementStore({ db, schema })
      const facilitator = start(createFacilitator({ schemes: [scheme], store }))
      let hooked = 0
      const onSettled = async () => {
        hooked += 1
      }
      expect(await facilitator.settle(buildFakeRequest(), { onSettled })).toMatchObject({
        errorReason: 'settlement_pending',
      })
      const reverted = start(
        createFacilitator({ schemes: [createFakeScheme({ confirm: async () => 'reverted' })] }),
      )
      expect(await reverted.settle(buildFakeRequest(), { onSettled })).toMatchObject({ success: false })
      expect(hooked).toBe(0)
    })

    test('behavior: a process killed after its broadcast is reconciled by the next one, never re-sent', async () => {
      const { db, schema } = await open()
      const hang = createHang()
      const schemeA = createFakeScheme({ confirm: hang.confirm })
      const storeA = await createPostgresSettlementStore({ db, schema })
      const a = start(createFacilitator({ schemes: [schemeA], store: storeA }))
      const abandoned = a.settle(buildFakeRequest())
      await waitFor(async () => (await storeA.countByState()).broadcast === 1)
      a.close()

      const schemeB = createFakeScheme()
      const storeB = await createPostgresSettlementStore({ db, schema })
      const b = start(createFacilitator({ schemes: [schemeB], store: storeB, now: later }))
      expect(await b.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
      expect(schemeB.broadcasts).toEqual([])
      expect(schemeB.reawaits).toEqual(schemeA.broadcasts)
      const settled = await b.settle(buildFakeRequest())
      expect(settled).toMatchObject({ success: true, transaction: schemeA.broadcasts[0] })

      // The stale process wakes up: its write is fenced and it answers the stored outcome.
      hang.release('timeout')
      expect(await abandoned).toEqual(settled)
      expect(await storeB.countByState()).toMatchObject({ settled: 1, pending: 0, broadcast: 0 })
    })

    test('behavior: a claim that never broadcast is released by the reconciler and retried', async () => {
      const { db, schema } = await open()
      const schemeA = createFakeScheme()
      const never = { ...schemeA, settle: () => new Promise<never>(() => {}) }
      const storeA = await createPostgresSettlementStore({ db, schema })
      const a = start(createFacilitator({ schemes: [never], store: storeA }))
      void a.settle(buildFakeRequest())
      await waitFor(async () => (await storeA.countByState()).claimed === 1)
      a.close()

      const schemeB = createFakeScheme()
      const b = start(
        createFacilitator({
          schemes: [schemeB],
          store: await createPostgresSettlementStore({ db, schema }),
          now: later,
        }),
      )
      expect(await b.reconcilePending()).toMatchObject({ checked: 1, abandoned: 1 })
      expect(schemeB.broadcasts).toHaveLength(0)
      expect(await b.settle(buildFakeRequest())).toMatchObject({ success: true })
      expect(schemeB.broadcasts).toHaveLength(1)
    })
  })
}

describe('exactly-once settlement across a PGlite restart', () => {
  test('behavior: the data directory keeps the broadcast; the restarted process re-awaits it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-facilitator-'))
    try {
      const hang = createHang()
      const schemeA = createFakeScheme({ confirm: hang.confirm })
      const dbA = await openSettlementDatabase({ dataDir })
      const storeA = await createPostgresSettlementStore({ db: dbA })
      const a = createFacilitator({ schemes: [schemeA], store: storeA })
      void a.settle(buildFakeRequest())
      await waitFor(async () => (await storeA.countByState()).broadcast === 1)
      a.close()
      await dbA.destroy()

      const schemeB = createFakeScheme()
      const dbB = await openSettlementDatabase({ dataDir })
      const b = createFacilitator({
        schemes: [schemeB],
        store: await createPostgresSettlementStore({ db: dbB }),
        now: later,
      })
      expect(await b.reconcilePending()).toMatchObject({ settled: 1 })
      expect(schemeB.broadcasts).toEqual([])
      expect(schemeB.reawaits).toEqual(schemeA.broadcasts)
      b.close()
      await dbB.destroy()
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
