import { setTimeout as sleep } from 'node:timers/promises'
import { beforeAll, expect, test } from 'vitest'
import type { Db } from '../../rails/types.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { createChainRegistry } from './create-chain-registry.js'
import { createCryptoSender } from './create-crypto-sender.js'

// Settlements whose receipts arrive together share one transaction (docs/rails.md "Batched
// settlements"); a batch whose handler fails for one send is rolled back and each send runs alone.
describeEachDatabase('crypto send settlements in batches', (getDb, engine) => {
  let h: Harness
  beforeAll(async () => {
    h = await createHarness(getDb())
  })

  test('behavior: sends settling together share a transaction; one failing handler fails only its own send', async () => {
    const chains = createChainRegistry()
    const tron = chains.get('test', 'tron')
    if (!tron) {
      throw new Error('no tron entry')
    }
    const sender = createCryptoSender(h.deps, {
      chains,
      evm: () => undefined,
      treasuryOf: () => undefined,
      depositKeyOf: () => Promise.reject(new Error('no deposit keys here')),
      leaseMs: 60_000,
    })
    // Six pending sends nobody drives (as after a restart): start() resumes them in one turn, and on a
    // chain without a node each settles at once, so all six settlements arrive together.
    const keys = Array.from({ length: 6 }, (_, i) => `batch_${engine}_${i}`)
    const now = h.deps.clock.now()
    await h.deps.db
      .insertInto('crypto_sends')
      .values(
        keys.map((key) => ({
          id: h.deps.ids.create('csend'),
          environment: 'test' as const,
          idempotency_key: key,
          chain: 'tron',
          network: tron.network,
          asset: 'USDT',
          source_address_id: null,
          to_address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
          amount: 5n,
          status: 'pending' as const,
          lease_owner: null,
          lease_until: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute()
    const failing = keys[3] as string
    let failOn = true
    const calls: { trx: Db; key: string }[] = []
    sender.onSettled(async (trx, send) => {
      calls.push({ trx, key: send.idempotencyKey })
      if (send.idempotencyKey === failing && failOn) {
        throw new Error('handler refused this send')
      }
      // A write of the handler's own, kept only if its transaction commits.
      await trx
        .updateTable('crypto_sends')
        .set({ failure_reason: `handled:${send.idempotencyKey}` })
        .where('id', '=', send.id)
        .execute()
    })

    const read = () =>
      h.deps.db
        .selectFrom('crypto_sends')
        .select(['idempotency_key', 'status', 'failure_reason', 'lease_until'])
        .where('idempotency_key', 'in', keys)
        .orderBy('idempotency_key')
        .execute()
    // Waits until no send is driven any more: settled, or pending with its lease handed back.
    const untilUndriven = async () => {
      for (let i = 0; i < 400; i++) {
        const current = await read()
        if (current.every((r) => r.status !== 'pending' || r.lease_until === null)) {
          return current
        }
        await sleep(25)
      }
      throw new Error('sends still driven')
    }
    await sender.start()
    const rows = await untilUndriven()

    // Every send but the failing one is confirmed, with its handler's write committed.
    for (const row of rows) {
      if (row.idempotency_key === failing) {
        expect(row).toMatchObject({ status: 'pending', failure_reason: null, lease_until: null })
      } else {
        expect(row).toMatchObject({ status: 'confirmed', failure_reason: `handled:${row.idempotency_key}` })
      }
    }
    // The first settlement ran alone; the other five in one transaction, which the failing handler
    // rolled back; then each of the five alone (the failing one failed alone too).
    const byTransaction = new Map<Db, string[]>()
    for (const call of calls) {
      byTransaction.set(call.trx, [...(byTransaction.get(call.trx) ?? []), call.key])
    }
    const groups = [...byTransaction.values()]
    expect(groups[0]).toHaveLength(1)
    const batch = groups[1] ?? []
    expect(batch.length).toBeGreaterThan(1)
    expect(batch.at(-1)).toBe(failing)
    expect(groups.slice(2).map((g) => g.length)).toEqual([1, 1, 1, 1, 1])
    expect(
      groups
        .slice(2)
        .map((g) => g[0])
        .sort(),
    ).toEqual(keys.filter((k) => k !== groups[0]?.[0]).sort())

    // The failing send's lease was handed back: the next start settles it, exactly once.
    await sender.stop()
    failOn = false
    calls.length = 0
    await sender.start()
    await sender.stop()
    expect(calls.map((c) => c.key)).toEqual([failing])
    expect((await read()).every((r) => r.status === 'confirmed')).toBe(true)
  })
})
