import {
  DEFAULT_EVM_NETWORKS,
  type LocalDevnet,
  SOLANA_DEVNET_NETWORK,
  startDevnet,
  usdcLikeAbi,
} from '@tollgate/devnet'
import { type Address, createPublicClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { getLedgerTransaction } from '../../ledger/get-ledger-transaction.js'
import { createDevnetPayer } from '../../testing/devnet-payer.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { waitCommittedTransfer } from '../../testing/wait-committed-transfer.js'
import { createRails } from '../create-rails.js'
import type { CryptoSend, IncomingTransfer, Rails } from '../types.js'
import { runSweepJob } from './run-sweep-job.js'

const BASE = 'eip155:84532'
let devnet: LocalDevnet

beforeAll(async () => {
  devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
})
afterAll(async () => {
  await devnet?.stop()
})

describeEachDatabase('crypto sends on the devnet', (getDb, engine) => {
  let h: Harness
  let rails: Rails
  const settled: CryptoSend[] = []
  const balanceOf = async (token: string, holder: string) => {
    const client = createPublicClient({ transport: http(devnet.networks[BASE]?.rpcUrl) })
    return client.readContract({
      address: token as Address,
      abi: usdcLikeAbi,
      functionName: 'balanceOf',
      args: [holder as Address],
    })
  }
  const waitSettled = async (key: string) => {
    for (let i = 0; i < 400; i++) {
      const send = await rails.crypto.get(key, 'test')
      if (send && send.status !== 'pending') {
        return send
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`send ${key} not settled`)
  }
  const usdc = () => devnet.networks[BASE]?.assets.USDC?.address ?? ''
  const usdt = () => devnet.networks[BASE]?.assets.USDT?.address ?? ''

  beforeAll(async () => {
    h = await createHarness(getDb())
    rails = createRails(h.deps, {
      masterSeed: `${engine === 'pglite' ? 'a' : 'b'}5`.repeat(64),
      networks: devnet.networks,
      pollIntervalMs: 50,
    })
    rails.crypto.onSettled(async (db, send) => {
      expect(db.isTransaction).toBe(true)
      settled.push(send)
    })
    const treasury = rails.crypto.getTreasury('test', 'base')
    if (!treasury) {
      throw new Error('no treasury')
    }
    await devnet.fund({ network: BASE, address: treasury.address, amount: 10n ** 20n })
    await devnet.fund({ network: BASE, address: treasury.address, asset: 'USDC', amount: 10n ** 12n })
    await devnet.fund({ network: BASE, address: treasury.address, asset: 'USDT', amount: 10n ** 12n })
    for (const payer of treasury.feePayers) {
      await devnet.fund({ network: BASE, address: payer, amount: 10n ** 20n })
    }
    await rails.start()
  })
  afterAll(async () => {
    await rails?.stop()
  })

  test('default: 50 concurrent sends with one idempotency key send once', async () => {
    const to = privateKeyToAddress(generatePrivateKey())
    const input = {
      environment: 'test' as const,
      chain: 'base' as const,
      asset: 'USDC',
      to,
      amount: 1_500_000n,
      idempotencyKey: `once_${engine}`,
    }
    const sends = await Promise.all(Array.from({ length: 50 }, () => rails.crypto.send(input)))
    expect(new Set(sends.map((s) => s.id)).size).toBe(1)
    const final = await waitSettled(input.idempotencyKey)
    expect(final).toMatchObject({ status: 'confirmed', failureReason: null })
    expect(final.txHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await balanceOf(usdc(), to)).toBe(1_500_000n)
    expect(settled.filter((s) => s.idempotencyKey === input.idempotencyKey)).toHaveLength(1)
    // A later call returns the settled send; another body under the same key is refused.
    expect((await rails.crypto.send(input)).status).toBe('confirmed')
    await expect(rails.crypto.send({ ...input, amount: 1n })).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    })
  })

  test('behavior: 100 distinct sends through the fee-payer pool all land, no nonce errors', async () => {
    const to = privateKeyToAddress(generatePrivateKey())
    const keys = Array.from({ length: 100 }, (_, i) => `pool_${engine}_${i}`)
    await Promise.all(
      keys.map((idempotencyKey) =>
        rails.crypto.send({
          environment: 'test',
          chain: 'base',
          asset: 'USDC',
          to,
          amount: 1_000n,
          idempotencyKey,
        }),
      ),
    )
    const finals = await Promise.all(keys.map(waitSettled))
    expect(finals.filter((s) => s.status !== 'confirmed')).toEqual([])
    expect(await balanceOf(usdc(), to)).toBe(100_000n)
  })

  test('behavior: native coin and a token without EIP-3009 go from the treasury itself', async () => {
    const to = privateKeyToAddress(generatePrivateKey())
    await rails.crypto.send({
      environment: 'test',
      chain: 'base',
      asset: 'ETH',
      to,
      amount: 10n ** 15n,
      idempotencyKey: `eth_${engine}`,
    })
    await rails.crypto.send({
      environment: 'test',
      chain: 'base',
      asset: 'USDT',
      to,
      amount: 42n,
      idempotencyKey: `usdt_${engine}`,
    })
    expect((await waitSettled(`eth_${engine}`)).status).toBe('confirmed')
    expect((await waitSettled(`usdt_${engine}`)).status).toBe('confirmed')
    const client = createPublicClient({ transport: http(devnet.networks[BASE]?.rpcUrl) })
    expect(await client.getBalance({ address: to })).toBe(10n ** 15n)
    expect(await balanceOf(usdt(), to)).toBe(42n)
  })

  test('behavior: a send claimed before a crash is broadcast once at the next start', async () => {
    const to = privateKeyToAddress(generatePrivateKey())
    const now = new Date()
    await h.deps.db
      .insertInto('crypto_sends')
      .values({
        id: `csend_crash_${engine}`,
        environment: 'test',
        idempotency_key: `crash_${engine}`,
        chain: 'base',
        network: BASE,
        asset: 'USDC',
        to_address: to,
        amount: 7n,
        status: 'pending',
        created_at: now,
        updated_at: now,
      })
      .execute()
    await rails.stop()
    await rails.start()
    expect((await waitSettled(`crash_${engine}`)).status).toBe('confirmed')
    await rails.stop()
    await rails.start()
    expect(await balanceOf(usdc(), to)).toBe(7n)
  })

  test('behavior: chains without a node are simulated in the sandbox; bad input is refused', async () => {
    const send = await rails.crypto.send({
      environment: 'test',
      chain: 'tron',
      asset: 'USDT',
      to: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      amount: 5n,
      idempotencyKey: `tron_${engine}`,
    })
    expect(send).toMatchObject({ status: 'confirmed' })
    expect(send.txHash).toMatch(/^sim_/)
    await expect(
      rails.crypto.send({
        environment: 'test',
        chain: 'base',
        asset: 'USDC',
        to: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
        amount: 5n,
        idempotencyKey: 'bad_to',
      }),
    ).rejects.toMatchObject({ code: 'validation_error' })
    // Solana with a node that does not answer: the send fails before anything is signed, never simulated.
    const withSolana = createRails(h.deps, {
      networks: { [SOLANA_DEVNET_NETWORK]: { rpcUrl: 'http://127.0.0.1:9' } },
    })
    const unreachable = await withSolana.crypto.send({
      environment: 'test',
      chain: 'solana',
      asset: 'USDC',
      to: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      amount: 5n,
      idempotencyKey: `solana_${engine}`,
    })
    expect(unreachable).toMatchObject({ status: 'failed', txHash: null })
    await expect(
      rails.crypto.send({
        environment: 'live',
        chain: 'tron',
        asset: 'USDT',
        to: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
        amount: 5n,
        idempotencyKey: 'live',
      }),
    ).rejects.toMatchObject({ code: 'provider_unavailable' })
    expect(
      await h.deps.db
        .selectFrom('crypto_sends')
        .select('id')
        .where('idempotency_key', 'in', ['bad_to', 'live'])
        .execute(),
    ).toEqual([])
  })

  test('behavior: a confirmed USDC payment to a deposit address gets a sweep job that lands in the treasury once', async () => {
    const confirmed: IncomingTransfer[] = []
    const unsubscribe = rails.incoming.subscribe('deposit', async (_db, transfer) => {
      if (transfer.status === 'confirmed') {
        confirmed.push(transfer)
      }
    })
    const address = await rails.addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'base',
      purpose: 'deposit',
      ownerId: `dep_sweep_${engine}`,
    })
    await createDevnetPayer(devnet, BASE).payToken('USDC', address.address, 3_000_000n)
    for (let i = 0; i < 200 && confirmed.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
    }
    unsubscribe()
    const [transfer] = confirmed
    if (!transfer) {
      throw new Error('payment not confirmed by the watcher')
    }
    await waitCommittedTransfer(h.deps.db, transfer.id)
    const jobs = await h.deps.db
      .selectFrom('jobs')
      .select(['kind', 'payload'])
      .where('key', '=', transfer.id)
      .execute()
    expect(jobs).toEqual([{ kind: 'rails.sweep', payload: { transferId: transfer.id } }])
    const treasury = rails.crypto.getTreasury('test', 'base')?.address ?? ''
    const before = await balanceOf(usdc(), treasury)
    await runSweepJob({ rails }, { transferId: transfer.id })
    await runSweepJob({ rails }, { transferId: transfer.id })
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep).toMatchObject({ status: 'confirmed', to: treasury, amount: 3_000_000n })
    expect(await balanceOf(usdc(), address.address)).toBe(0n)
    expect(await balanceOf(usdc(), treasury)).toBe(before + 3_000_000n)
    // Custody moved from the deposit addresses to the treasury in the ledger, once.
    const ledger = await getLedgerTransaction(h.deps, {
      environment: 'test',
      idempotencyKey: `sweep:${sweep.id}`,
    })
    expect(ledger).toMatchObject({ source: 'sweep', txHash: sweep.txHash })
    expect(ledger?.transfers.map((t) => [t.currency, t.amount])).toEqual([['USDC', 3_000_000n]])
  })

  // Pays `amount` of `asset` to a fresh deposit address, waits for the watcher to confirm it, and returns the transfer.
  const payDeposit = async (asset: 'ETH' | 'USDT', amount: bigint) => {
    const address = await rails.addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'base',
      purpose: 'deposit',
      ownerId: `dep_${asset}_${engine}`,
    })
    const confirmed: IncomingTransfer[] = []
    const unsubscribe = rails.incoming.subscribe('deposit', async (_db, transfer) => {
      if (transfer.status === 'confirmed' && transfer.address.id === address.id) {
        confirmed.push(transfer)
      }
    })
    const payer = createDevnetPayer(devnet, BASE)
    await (asset === 'ETH'
      ? payer.payNative(address.address, amount)
      : payer.payToken('USDT', address.address, amount))
    for (let i = 0; i < 200 && confirmed.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
    }
    unsubscribe()
    const [transfer] = confirmed
    if (!transfer) {
      throw new Error(`${asset} payment not confirmed by the watcher`)
    }
    await waitCommittedTransfer(h.deps.db, transfer.id)
    return transfer
  }

  test('behavior: a native ETH deposit is swept by the deposit key itself, keeping its gas back', async () => {
    const transfer = await payDeposit('ETH', 10n ** 16n)
    const client = createPublicClient({ transport: http(devnet.networks[BASE]?.rpcUrl) })
    const treasury = (rails.crypto.getTreasury('test', 'base')?.address ?? '') as Address
    const before = await client.getBalance({ address: treasury })
    await runSweepJob({ rails }, { transferId: transfer.id })
    await runSweepJob({ rails }, { transferId: transfer.id })
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep.status).toBe('confirmed')
    expect(sweep.amount).toBeLessThan(10n ** 16n)
    expect(await client.getBalance({ address: treasury })).toBe(before + sweep.amount)
    // Native coins have no ledger currency: no custody legs.
    expect(
      await getLedgerTransaction(h.deps, { environment: 'test', idempotencyKey: `sweep:${sweep.id}` }),
    ).toBeUndefined()
  })

  test('behavior: a plain ERC-20 deposit gets gas from the treasury first, then is swept once; the top-up is no deposit', async () => {
    const transfer = await payDeposit('USDT', 5_000_000n)
    const treasury = rails.crypto.getTreasury('test', 'base')?.address ?? ''
    const before = await balanceOf(usdt(), treasury)
    await Promise.all([
      runSweepJob({ rails }, { transferId: transfer.id }),
      runSweepJob({ rails }, { transferId: transfer.id }),
    ])
    const gas = await waitSettled(`sweep-gas:${transfer.id}`)
    expect(gas).toMatchObject({ status: 'confirmed', asset: 'ETH', to: transfer.address.address })
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep).toMatchObject({ status: 'confirmed', amount: 5_000_000n })
    expect(await balanceOf(usdt(), transfer.address.address)).toBe(0n)
    expect(await balanceOf(usdt(), treasury)).toBe(before + 5_000_000n)
    const ledger = await getLedgerTransaction(h.deps, {
      environment: 'test',
      idempotencyKey: `sweep:${sweep.id}`,
    })
    expect(ledger?.transfers.map((t) => [t.currency, t.amount])).toEqual([['USDT', 5_000_000n]])
    // Let the watcher scan the top-up's block: it is not recorded as an incoming transfer.
    await new Promise((r) => setTimeout(r, 500))
    const incoming = await h.deps.db
      .selectFrom('incoming_transfers')
      .select('asset')
      .where('address_id', '=', transfer.address.id)
      .execute()
    expect(incoming).toEqual([{ asset: 'USDT' }])
  })
})
