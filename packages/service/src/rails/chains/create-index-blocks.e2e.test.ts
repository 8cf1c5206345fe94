import { beforeAll, expect, test } from 'vitest'
import { inTransaction } from '../../db/in-transaction.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { createChainRegistry } from './create-chain-registry.js'
import { createDepositAddresses } from './create-deposit-addresses.js'
import { createIndexBlocks } from './create-index-blocks.js'

const counterOf = async (h: Harness, branch: string) =>
  (
    await h.deps.db
      .selectFrom('address_counters')
      .select('next_index')
      .where('branch', '=', branch)
      .executeTakeFirst()
  )?.next_index

describeEachDatabase(
  'deposit address indexes reserved in blocks',
  (getDb) => {
    let h: Harness
    beforeAll(async () => {
      h = await createHarness(getDb())
    })

    test('behavior: nothing is handed out before a reservation commits; then the block, in order, once', async () => {
      const blocks = createIndexBlocks(h.deps.db, { blockSize: 4 })
      expect(blocks.take('t:order')).toBeUndefined()
      await blocks.reserve('t:order')
      const taken = Array.from({ length: 6 }, () => blocks.take('t:order'))
      // The first take started a block, the reserve above joined it or added the next one; taking
      // below half a block starts another, so the branch is never found empty while it is used.
      expect(taken.slice(0, 4)).toEqual([0, 1, 2, 3])
      await blocks.reserve('t:order')
      const all = [...taken, ...Array.from({ length: 8 }, () => blocks.take('t:order'))].filter(
        (i) => i !== undefined,
      )
      expect(new Set(all).size).toBe(all.length)
      expect(Math.max(...all)).toBeLessThan(Number(await counterOf(h, 't:order')))
    })

    test('behavior: two processes on one counter get disjoint blocks, and a restarted one never reuses an index', async () => {
      const first = createIndexBlocks(h.deps.db, { blockSize: 8 })
      const second = createIndexBlocks(h.deps.db, { blockSize: 8 })
      await Promise.all([first.reserve('t:two'), second.reserve('t:two')])
      const fromFirst = Array.from({ length: 3 }, () => first.take('t:two'))
      const fromSecond = Array.from({ length: 3 }, () => second.take('t:two'))
      expect(new Set([...fromFirst, ...fromSecond]).size).toBe(6)
      // The first process stops with five of its block unused: they are a gap, not handed out again.
      const restarted = createIndexBlocks(h.deps.db, { blockSize: 8 })
      await restarted.reserve('t:two')
      const afterRestart = Array.from({ length: 8 }, () => restarted.take('t:two'))
      expect(Math.min(...(afterRestart as number[]))).toBeGreaterThanOrEqual(16)
    })

    test('behavior: an allocation inside a transaction before any block is ready takes its index from the counter in that transaction', async () => {
      const chains = createChainRegistry()
      const addresses = createDepositAddresses(h.deps, { seed: new Uint8Array(64).fill(3), chains })
      const input = {
        merchantId: h.a.id,
        environment: 'live' as const,
        chain: 'base' as const,
        purpose: 'deposit' as const,
      }
      const inTrx = await inTransaction(h.deps.db, (trx) =>
        addresses.allocate(trx, { ...input, ownerId: 'first' }),
      )
      // The block reserved meanwhile starts after the index the transaction took.
      const later = await Promise.all(
        Array.from({ length: 10 }, (_, i) => addresses.allocate(h.deps.db, { ...input, ownerId: `o${i}` })),
      )
      const rows = await h.deps.db
        .selectFrom('deposit_addresses')
        .select(['owner_id', 'derivation_path', 'address'])
        .where('environment', '=', 'live')
        .where('purpose', '=', 'deposit')
        .execute()
      expect(rows).toHaveLength(11)
      expect(new Set(rows.map((r) => r.derivation_path)).size).toBe(11)
      expect(new Set(rows.map((r) => r.address)).size).toBe(11)
      // The allocation's take() starts a block reservation on the root handle and then increments the
      // counter in its own transaction. Either one reaches the counter row first: the transaction's
      // increment (index 0; the block waits for its commit and takes 1-64) or the block (0-63 are the
      // block's, the transaction gets 64). Both are the counter's, never a block's index.
      const first = rows.find((r) => r.owner_id === 'first')?.derivation_path
      expect(["m/44'/60'/0'/1/0", "m/44'/60'/0'/1/64"]).toContain(first)
      const laterPaths = rows.filter((r) => r.owner_id !== 'first').map((r) => r.derivation_path)
      expect(laterPaths).not.toContain(first)
      expect(later.map((a) => a.address)).not.toContain(inTrx.address)
    })

    test('behavior: an index taken from a block by a rolled-back allocation is a gap, never given to another owner', async () => {
      const chains = createChainRegistry()
      const input = {
        merchantId: h.a.id,
        environment: 'live' as const,
        chain: 'solana' as const,
        purpose: 'session' as const,
      }
      const blocks = createIndexBlocks(h.deps.db, { blockSize: 8 })
      await blocks.reserve('live:501:session')
      const addresses = createDepositAddresses(h.deps, {
        seed: new Uint8Array(64).fill(4),
        chains,
        indexBlocks: blocks,
      })
      let rolledBack = ''
      await expect(
        inTransaction(h.deps.db, async (trx) => {
          rolledBack = (await addresses.allocate(trx, { ...input, ownerId: 'rolled_back' })).address
          throw new Error('abort')
        }),
      ).rejects.toThrow('abort')
      const next = await Promise.all(
        Array.from({ length: 5 }, (_, i) => addresses.allocate(h.deps.db, { ...input, ownerId: `n${i}` })),
      )
      expect(rolledBack).not.toBe('')
      expect(next.map((a) => a.address)).not.toContain(rolledBack)
    })

    test("behavior: reserveIndex gives concurrent callers distinct indexes that allocate uses; another branch's is refused", async () => {
      const chains = createChainRegistry()
      const addresses = createDepositAddresses(h.deps, {
        seed: new Uint8Array(64).fill(5),
        chains,
        indexBlocks: createIndexBlocks(h.deps.db, { blockSize: 4 }),
      })
      const input = { environment: 'test' as const, chain: 'arbitrum' as const, purpose: 'x402' as const }
      const reserve = async (chain: 'arbitrum' | 'solana') => {
        const reserved = await addresses.reserveIndex({ ...input, chain })
        if (!reserved) {
          throw new Error('blocks of 4 reserve ahead')
        }
        return reserved
      }
      const reserved = await Promise.all(Array.from({ length: 10 }, () => reserve('arbitrum')))
      expect(new Set(reserved.map((r) => r.index)).size).toBe(10)
      const allocated = await Promise.all(
        reserved.map((r, i) =>
          inTransaction(h.deps.db, (trx) =>
            addresses.allocate(trx, { ...input, merchantId: h.a.id, ownerId: `x${i}`, reserved: r }),
          ),
        ),
      )
      const rows = await h.deps.db
        .selectFrom('deposit_addresses')
        .select('derivation_path')
        .where(
          'id',
          'in',
          allocated.map((a) => a.id),
        )
        .execute()
      expect(rows.map((r) => r.derivation_path).sort()).toEqual(
        reserved.map((r) => `m/44'/60'/1'/2/${r.index}`).sort(),
      )
      const solana = await reserve('solana')
      await expect(
        addresses.allocate(h.deps.db, { ...input, merchantId: h.a.id, ownerId: 'wrong', reserved: solana }),
      ).rejects.toMatchObject({ code: 'internal_error' })
    })
  },
  { poolSize: 20 },
)
