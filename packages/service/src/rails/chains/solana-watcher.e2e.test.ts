import { type Address, getAddressEncoder, getBase58Decoder } from '@solana/kit'
import { type LocalDevnet, SOLANA_DEVNET_NETWORK, startDevnet } from '@tollgate/devnet'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { sendLamports, sendSplTransfer } from '../../testing/send-solana-transfer.js'
import type { ChainEntry, IncomingTransfer } from '../types.js'
import { createChainRegistry } from './create-chain-registry.js'
import { createDepositAddresses } from './create-deposit-addresses.js'
import { deriveEd25519Key } from './derive-deposit-key.js'
import { createIncomingHub } from './incoming-store.js'
import { createJsonRpc, type JsonRpc } from './json-rpc.js'
import { createNetworkSignal } from './look-schedule.js'
import { createSolanaWatcher } from './solana-watcher.js'

let devnet: LocalDevnet
beforeAll(async () => {
  devnet = await startDevnet({ evm: false })
})
afterAll(async () => {
  await devnet?.stop()
})

describeEachDatabase('createSolanaWatcher on the devnet', (getDb, engine) => {
  let h: Harness
  let entry: ChainEntry
  let rpc: JsonRpc
  const hub = createIncomingHub()
  const delivered: IncomingTransfer[] = []
  let addresses: ReturnType<typeof createDepositAddresses>
  let chains: ReturnType<typeof createChainRegistry>
  let seed: Uint8Array
  const statusesOf = (txHash: string) => delivered.filter((t) => t.txHash === txHash).map((t) => t.status)

  beforeAll(async () => {
    h = await createHarness(getDb())
    chains = createChainRegistry({ networks: devnet.networks, confirmations: { test: { solana: 10 } } })
    entry = chains.get('test', 'solana') as ChainEntry
    rpc = createJsonRpc(devnet.networks[SOLANA_DEVNET_NETWORK]?.rpcUrl ?? '', {
      network: SOLANA_DEVNET_NETWORK,
    })
    seed = new Uint8Array(64).fill(engine === 'pglite' ? 9 : 10)
    addresses = createDepositAddresses(h.deps, { seed, chains })
    hub.subscribe('deposit', async (_db, transfer) => {
      delivered.push(transfer)
    })
  })

  // First in the file: no deposit address exists on the network yet.
  test('behavior: with nothing watched an idle poll sends no RPC call and no SQL, and an address allocated here is read from the next poll', async () => {
    const signal = createNetworkSignal()
    const signalled = createDepositAddresses(h.deps, { seed, chains, allocated: signal })
    const ownHub = createIncomingHub()
    ownHub.subscribe('deposit', async (_db, transfer) => {
      delivered.push(transfer)
    })
    const counter = { statements: 0, rpc: 0 }
    const db = h.deps.db.withPlugin({
      transformQuery: (args) => {
        counter.statements += 1
        return args.node
      },
      transformResult: async (args) => args.result,
    })
    const counted: JsonRpc = {
      request: (method, params) => {
        counter.rpc += 1
        return rpc.request(method, params)
      },
    }
    const watcher = createSolanaWatcher(
      { ...h.deps, db },
      { entry, rpc: counted, hub: ownHub, addressSignal: signal, backstopMs: 3_600_000 },
    )
    await watcher.poll()
    counter.statements = 0
    counter.rpc = 0
    expect(await watcher.poll()).toMatchObject({ idle: true, accounts: 0 })
    expect(await watcher.poll()).toMatchObject({ idle: true, accounts: 0 })
    expect(counter).toEqual({ statements: 0, rpc: 0 })
    await signalled.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'solana',
      purpose: 'deposit',
      ownerId: `dep_sol_idle_${Math.random()}`,
    })
    // Left unfunded: the next tests' watchers read it as an unchanged account.
    const found = await watcher.poll()
    expect(found.idle).toBeUndefined()
    expect(found.accounts).toBeGreaterThan(0)
    expect(counter.rpc).toBeGreaterThan(0)
  })

  test('default: an SPL and a SOL transfer are seen, then confirmed; unchanged accounts cost one batched read', async () => {
    const owner = await addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'solana',
      purpose: 'deposit',
      ownerId: `dep_sol_${Math.random()}`,
    })
    // The owner's USDC account exists empty (created without a transaction).
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: owner.address, asset: 'USDC', amount: 0n })
    const watcher = createSolanaWatcher(h.deps, { entry, rpc, hub })
    expect(await watcher.poll()).toMatchObject({ changed: 0, recorded: 0 })
    const payer = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
    const usdc = entry.assets.find((a) => a.symbol === 'USDC')
    if (!payer || !usdc?.address) {
      throw new Error('no payer or USDC')
    }
    const payUsdc = (amount: bigint) =>
      sendSplTransfer(rpc, {
        secret: payer.privateKey,
        payer: payer.address,
        owner: owner.address,
        asset: usdc,
        amount,
      })
    const tokenTx = await payUsdc(2_500_000n)
    const nativeTx = await sendLamports(rpc, {
      secret: payer.privateKey,
      to: owner.address,
      lamports: 5_000_000n,
    })
    expect(await watcher.poll()).toMatchObject({ changed: 2, found: 2, recorded: 2 })
    expect(statusesOf(tokenTx)).toEqual(['seen'])
    expect(delivered.find((t) => t.txHash === tokenTx)).toMatchObject({
      asset: 'USDC',
      amount: 2_500_000n,
      decimals: 6,
      address: { id: owner.id },
    })
    expect(delivered.find((t) => t.txHash === nativeTx)).toMatchObject({
      asset: 'SOL',
      amount: 5_000_000n,
      decimals: 9,
    })
    devnet.solana?.advanceBlocks(10)
    expect(await watcher.poll()).toMatchObject({ changed: 0 })
    expect(statusesOf(tokenTx)).toEqual(['seen', 'confirmed'])
    expect(statusesOf(nativeTx)).toEqual(['seen', 'confirmed'])

    // A transfer while the watcher is down: the restarted one checks the funded accounts once,
    // records the new transfer and nothing twice.
    const whileDown = await payUsdc(1_000n)
    const restarted = createSolanaWatcher(h.deps, { entry, rpc, hub })
    expect(await restarted.poll()).toMatchObject({ changed: 2, found: 1, recorded: 1 })
    expect(statusesOf(whileDown)).toEqual(['seen'])
    expect(await restarted.poll()).toMatchObject({ changed: 0, found: 0 })
    expect(statusesOf(tokenTx)).toEqual(['seen', 'confirmed'])
  })

  test('behavior: an idle poll costs ceil(T/100) + 1 calls for T token accounts; SOL accounts beyond that are read in round robin', async () => {
    const owners = []
    for (let i = 0; i < 150; i++) {
      owners.push(
        await addresses.allocate(h.deps.db, {
          merchantId: h.a.id,
          environment: 'test',
          chain: 'solana',
          purpose: 'deposit',
          ownerId: `dep_rr_${i}_${Math.random()}`,
        }),
      )
    }
    const calls: string[] = []
    const counting = {
      request: (method: string, params: unknown[]) => {
        calls.push(method)
        return rpc.request(method, params)
      },
    }
    // One SPL asset (USDC), so 150 addresses leave SOL accounts for the round robin; with USDC and
    // USDT (the sandbox) the token accounts are 2N and an idle poll costs ceil(2N/100) + 1.
    const usdcOnly = { ...entry, assets: entry.assets.filter((a) => a.symbol !== 'USDT') }
    expect(usdcOnly.assets.map((a) => a.symbol)).toEqual(['SOL', 'USDC', 'USDC2022'])
    const watcher = createSolanaWatcher(h.deps, { entry: usdcOnly, rpc: counting, hub })
    await watcher.poll()
    calls.length = 0
    await watcher.poll()
    const n = (
      await h.deps.db.selectFrom('deposit_addresses').select('id').where('chain', '=', 'solana').execute()
    ).length
    // (The seen transfer of the test above adds its getSignatureStatuses: not an account read.)
    expect(calls.filter((m) => m !== 'getSignatureStatuses')).toEqual(
      Array(Math.ceil(n / 100) + 1).fill('getMultipleAccounts'),
    )
    // The sandbox's entry watches USDT too: 2N token accounts.
    const both = createSolanaWatcher(h.deps, { entry, rpc: counting, hub })
    await both.poll()
    calls.length = 0
    await both.poll()
    expect(calls.filter((m) => m !== 'getSignatureStatuses')).toEqual(
      Array(Math.ceil((2 * n) / 100) + 1).fill('getMultipleAccounts'),
    )
    // SOL to the newest address (not in every poll's slice) is seen within two polls.
    const payer = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
    const last = owners.at(-1)
    if (!payer || !last) {
      throw new Error('no payer')
    }
    const tx = await sendLamports(rpc, { secret: payer.privateKey, to: last.address, lamports: 1_000_000n })
    await watcher.poll()
    await watcher.poll()
    expect(statusesOf(tx)).toEqual(['seen'])
  })

  test('behavior: with the address signal an idle poll sends no SQL, and an address allocated here is watched from the next poll', async () => {
    const signal = createNetworkSignal()
    const signalled = createDepositAddresses(h.deps, { seed, chains, allocated: signal })
    const ownHub = createIncomingHub()
    ownHub.subscribe('deposit', async (_db, transfer) => {
      delivered.push(transfer)
    })
    const counter = { statements: 0 }
    const db = h.deps.db.withPlugin({
      transformQuery: (args) => {
        counter.statements += 1
        return args.node
      },
      transformResult: async (args) => args.result,
    })
    const watcher = createSolanaWatcher(
      { ...h.deps, db },
      { entry, rpc, hub: ownHub, addressSignal: signal, backstopMs: 3_600_000 },
    )
    // Earlier tests' transfers reach their confirmations: none stays *seen*.
    devnet.solana?.advanceBlocks(10)
    await watcher.poll()
    await watcher.poll()
    counter.statements = 0
    expect(await watcher.poll()).toMatchObject({ changed: 0, recorded: 0 })
    expect(counter.statements).toBe(0)
    const owner = await signalled.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'solana',
      purpose: 'deposit',
      ownerId: `dep_sol_signal_${Math.random()}`,
    })
    const payer = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
    if (!payer) {
      throw new Error('no payer')
    }
    const tx = await sendLamports(rpc, { secret: payer.privateKey, to: owner.address, lamports: 2_000_000n })
    expect(await watcher.poll()).toMatchObject({ recorded: 1 })
    expect(statusesOf(tx)).toEqual(['seen'])
  })
  test('behavior: a sweep then a deposit of the same amount between two polls (balance A → 0 → A) is still found', async () => {
    const ownHub = createIncomingHub()
    const found: IncomingTransfer[] = []
    ownHub.subscribe('deposit', async (_db, transfer) => {
      found.push(transfer)
    })
    const signal = createNetworkSignal()
    const signalled = createDepositAddresses(h.deps, { seed, chains, allocated: signal })
    const watcher = createSolanaWatcher(h.deps, {
      entry,
      rpc,
      hub: ownHub,
      addressSignal: signal,
      backstopMs: 3_600_000,
    })
    const owner = await signalled.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'solana',
      purpose: 'deposit',
      ownerId: `dep_sol_aba_${Math.random()}`,
    })
    const payer = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
    const usdc = entry.assets.find((a) => a.symbol === 'USDC')
    if (!payer || !usdc) {
      throw new Error('no payer or USDC')
    }
    // The deposit key pays its own fee here (the rails' sweep has the treasury pay it).
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: owner.address, amount: 10n ** 9n })
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: owner.address, asset: 'USDC', amount: 0n })
    await watcher.poll()
    const deposit = () =>
      sendSplTransfer(rpc, {
        secret: payer.privateKey,
        payer: payer.address,
        owner: owner.address,
        asset: usdc,
        amount: 700_000n,
      })
    const first = await deposit()
    await watcher.poll()
    expect(found.map((t) => t.txHash)).toEqual([first])

    // The sweep: the deposit key moves the 0.7 USDC out, and the send is recorded as the rails do.
    const { derivation_path } = await h.deps.db
      .selectFrom('deposit_addresses')
      .select('derivation_path')
      .where('id', '=', owner.id)
      .executeTakeFirstOrThrow()
    const secret = getBase58Decoder().decode(
      new Uint8Array([
        ...deriveEd25519Key(seed, derivation_path),
        ...getAddressEncoder().encode(owner.address as Address),
      ]),
    )
    const sweepTx = await sendSplTransfer(rpc, {
      secret,
      payer: owner.address,
      owner: payer.address,
      asset: usdc,
      amount: 700_000n,
    })
    const now = h.deps.clock.now()
    await h.deps.db
      .insertInto('crypto_sends')
      .values({
        id: `csend_aba_${Math.random()}`,
        environment: 'test',
        idempotency_key: `sweep:aba_${Math.random()}`,
        chain: 'solana',
        network: entry.network,
        asset: 'USDC',
        source_address_id: owner.id,
        to_address: payer.address,
        amount: 700_000n,
        status: 'confirmed',
        tx_hash: sweepTx,
        created_at: now,
        updated_at: now,
      })
      .execute()
    ownHub.swept?.raise(entry.network)
    const second = await deposit()
    expect(await watcher.poll()).toMatchObject({ recorded: 1 })
    expect(found.map((t) => t.txHash)).toEqual([first, second])
  })
})
