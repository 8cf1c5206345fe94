import { AppError } from '@tollgate/core'
import { beforeAll, expect, test } from 'vitest'
import { inTransaction } from '../../db/in-transaction.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { createRails } from '../create-rails.js'
import type { IncomingTransfer, Rails } from '../types.js'
import { createDepositAddresses } from './create-deposit-addresses.js'
import { createIndexBlocks } from './create-index-blocks.js'

const seed = '11'.repeat(64)

describeEachDatabase('deposit addresses and simulated incoming transfers', (getDb) => {
  let h: Harness
  let rails: Rails
  beforeAll(async () => {
    h = await createHarness(getDb())
    rails = createRails(h.deps, { masterSeed: seed })
  })

  test('default: allocate is idempotent per (purpose, owner, chain) and find returns the address', async () => {
    const input = {
      merchantId: h.a.id,
      environment: 'test' as const,
      chain: 'base' as const,
      purpose: 'session' as const,
      ownerId: 'ses_1',
    }
    const first = await rails.addresses.allocate(h.deps.db, input)
    const again = await rails.addresses.allocate(h.deps.db, input)
    expect(again).toEqual(first)
    expect(first).toMatchObject({
      network: 'eip155:84532',
      purpose: 'session',
      ownerId: 'ses_1',
      merchantId: h.a.id,
    })
    expect(rails.chains.isValidAddress('base', first.address)).toBe(true)
    const found = await rails.addresses.find(h.deps.db, {
      environment: 'test',
      chain: 'base',
      address: first.address.toLowerCase(),
    })
    expect(found?.id).toBe(first.id)
    expect(
      await rails.addresses.find(h.deps.db, { environment: 'live', chain: 'base', address: first.address }),
    ).toBeUndefined()
  })

  test('behavior: no address is shared between owners, merchants or EVM chains, even allocated concurrently', async () => {
    const chains = ['base', 'arbitrum', 'bsc', 'ethereum'] as const
    const allocated = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        rails.addresses.allocate(h.deps.db, {
          merchantId: i % 2 === 0 ? h.a.id : h.b.id,
          environment: 'test',
          chain: chains[i % chains.length] ?? 'base',
          purpose: 'deposit',
          ownerId: `dep_${i}`,
        }),
      ),
    )
    expect(new Set(allocated.map((a) => a.address.toLowerCase())).size).toBe(24)
  })

  test('behavior: without blocks, a rolled-back allocation hands its index to the next owner, never twice', async () => {
    // Blocks of one: every allocation updates the counter in its own transaction (rolled back with it).
    const addresses = createDepositAddresses(h.deps, {
      seed: Buffer.from(seed, 'hex'),
      chains: rails.chains,
      indexBlocks: createIndexBlocks(h.deps.db, { blockSize: 1 }),
    })
    const input = {
      merchantId: h.a.id,
      environment: 'live' as const,
      chain: 'solana' as const,
      purpose: 'x402' as const,
    }
    await expect(
      inTransaction(h.deps.db, async (trx) => {
        await addresses.allocate(trx, { ...input, ownerId: 'rolled_back' })
        throw new AppError('internal_error')
      }),
    ).rejects.toThrow()
    expect(await addresses.reserveIndex(input)).toBeUndefined()
    const next = await addresses.allocate(h.deps.db, { ...input, ownerId: h.a.id })
    const other = await addresses.allocate(h.deps.db, { ...input, ownerId: h.b.id })
    expect(next.address).not.toBe(other.address)
    const rows = await h.deps.db
      .selectFrom('deposit_addresses')
      .select('derivation_path')
      .where('id', 'in', [next.id, other.id])
      .execute()
    expect(rows.map((r) => r.derivation_path).sort()).toEqual(["m/44'/501'/0'/2'/0'", "m/44'/501'/0'/2'/1'"])
  })

  test('behavior: simulate records seen, then confirmed, delivered once per status inside the transaction', async () => {
    const address = await rails.addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'tron',
      purpose: 'session',
      ownerId: 'ses_tron',
    })
    const delivered: [string, string, boolean][] = []
    const unsubscribe = rails.incoming.subscribe('session', async (db, transfer: IncomingTransfer) => {
      delivered.push([transfer.status, transfer.amount.toString(), db.isTransaction])
    })
    const input = {
      environment: 'test' as const,
      chain: 'tron' as const,
      asset: 'USDT',
      address: address.address,
      amount: 2_500_000n,
      confirmations: 0,
      txHash: 'sim_tron_1',
    }
    const seen = await rails.incoming.simulate(input)
    expect(seen).toMatchObject({ status: 'seen', asset: 'USDT', decimals: 6, amount: 2_500_000n })
    const again = await rails.incoming.simulate(input)
    expect(again.id).toBe(seen.id)
    const confirmed = await rails.incoming.simulate({ ...input, confirmations: 19 })
    expect(confirmed).toMatchObject({ id: seen.id, status: 'confirmed', confirmations: 19 })
    expect(delivered).toEqual([
      ['seen', '2500000', true],
      ['confirmed', '2500000', true],
    ])
    unsubscribe()
    const listed = await rails.incoming.list(h.deps.db, { environment: 'test', addressIds: [address.id] })
    expect(listed.map((t) => [t.id, t.status])).toEqual([[seen.id, 'confirmed']])
  })

  test('behavior: a failing subscriber rolls the record back; unknown addresses and assets are refused', async () => {
    const address = await rails.addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'bitcoin',
      purpose: 'deposit',
      ownerId: 'dep_btc',
    })
    const unsubscribe = rails.incoming.subscribe('deposit', async () => {
      throw new AppError('internal_error')
    })
    const input = {
      environment: 'test' as const,
      chain: 'bitcoin' as const,
      asset: 'BTC',
      address: address.address,
      amount: 1000n,
      confirmations: 1,
    }
    await expect(rails.incoming.simulate(input)).rejects.toThrow()
    unsubscribe()
    expect(await rails.incoming.list(h.deps.db, { environment: 'test', addressIds: [address.id] })).toEqual(
      [],
    )
    await expect(rails.incoming.simulate({ ...input, asset: 'USDC' })).rejects.toMatchObject({
      code: 'unknown_asset',
    })
    await expect(
      rails.incoming.simulate({ ...input, address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }),
    ).rejects.toMatchObject({ code: 'not_found' })
  })
})
