import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDevnetPayer } from '../../testing/devnet-payer.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import type { ChainEntry, DepositAddress, IncomingTransfer } from '../types.js'
import { createChainRegistry } from './create-chain-registry.js'
import { createDepositAddresses } from './create-deposit-addresses.js'
import { createEvmWatcher, type EvmWatcherOptions } from './evm-watcher.js'
import { createIncomingHub } from './incoming-store.js'
import { createJsonRpc } from './json-rpc.js'
import { createNetworkSignal } from './look-schedule.js'

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

describeEachDatabase('createEvmWatcher on the devnet', (getDb, engine) => {
  let h: Harness
  let entry: ChainEntry
  const hub = createIncomingHub()
  const delivered: IncomingTransfer[] = []
  let addresses: ReturnType<typeof createDepositAddresses>
  const watcher = (options: Partial<EvmWatcherOptions> = {}) => {
    const network = devnet.networks[BASE]
    if (!network) {
      throw new Error('no base devnet')
    }
    return createEvmWatcher(h.deps, {
      entry,
      hub,
      rpc: createJsonRpc(network.rpcUrl, { network: BASE }),
      ...options,
    })
  }
  const payer = () => {
    const devnetPayer = createDevnetPayer(devnet, BASE)
    return {
      payUsdc: (to: string, amount: bigint) => devnetPayer.payToken('USDC', to, amount),
      payNative: devnetPayer.payNative,
    }
  }
  const allocate = (ownerId: string): Promise<DepositAddress> =>
    addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'base',
      purpose: 'session',
      ownerId,
    })
  let seed: Uint8Array
  let chains: ReturnType<typeof createChainRegistry>
  // A watcher wired as the rails wire it (address signal, own hub) whose SQL statements are counted;
  // the backstop is an hour, so nothing in a test is found by it.
  const signalledWatcher = () => {
    const network = devnet.networks[BASE]
    if (!network) {
      throw new Error('no base devnet')
    }
    const signal = createNetworkSignal()
    const ownHub = createIncomingHub()
    ownHub.subscribe('session', async (_db, transfer) => {
      delivered.push(transfer)
    })
    const counter = { statements: 0, rpc: 0 }
    const rpc = createJsonRpc(network.rpcUrl, { network: BASE, onRequest: () => (counter.rpc += 1) })
    const db = h.deps.db.withPlugin({
      transformQuery: (args) => {
        counter.statements += 1
        return args.node
      },
      transformResult: async (args) => args.result,
    })
    const w = createEvmWatcher(
      { ...h.deps, db },
      {
        entry,
        hub: ownHub,
        rpc,
        addressSignal: signal,
        backstopMs: 3_600_000,
      },
    )
    const signalled = createDepositAddresses(h.deps, { seed, chains, allocated: signal })
    return { w, signal, counter, signalled }
  }
  const statusesOf = (txHash: string) => delivered.filter((t) => t.txHash === txHash).map((t) => t.status)

  beforeAll(async () => {
    h = await createHarness(getDb())
    chains = createChainRegistry({ networks: devnet.networks, confirmations: { test: { base: 3 } } })
    const base = chains.get('test', 'base')
    if (!base) {
      throw new Error('no base entry')
    }
    entry = base
    seed = new Uint8Array(64).fill(engine === 'pglite' ? 3 : 4)
    addresses = createDepositAddresses(h.deps, { seed, chains })
    hub.subscribe('session', async (_db, transfer) => {
      delivered.push(transfer)
    })
    // First poll: the cursor starts at the head, nothing before it is scanned.
    await watcher().poll()
  })

  // First in the file: no deposit address exists on the network yet.
  test('behavior: with nothing watched the cursor jumps to the head instead of scanning the blocks mined meanwhile', async () => {
    const w = watcher()
    await w.poll()
    await devnet.evm?.mine({ network: BASE, blocks: 250 })
    const result = await w.poll()
    expect(result).toMatchObject({ scanned: 0, found: 0 })
    const cursor = await h.deps.db
      .selectFrom('chain_cursors')
      .select('block_number')
      .where('network', '=', BASE)
      .executeTakeFirstOrThrow()
    expect(BigInt(cursor.block_number)).toBe(result.head)
  })

  test('behavior: with nothing watched an idle poll sends no RPC call and no SQL, and an address allocated here is watched from the next poll', async () => {
    const { w, counter, signalled } = signalledWatcher()
    await w.poll()
    counter.statements = 0
    counter.rpc = 0
    expect(await w.poll()).toMatchObject({ idle: true, scanned: 0 })
    expect(await w.poll()).toMatchObject({ idle: true, scanned: 0 })
    expect(counter).toEqual({ statements: 0, rpc: 0 })
    // Blocks mined while it idles are scanned once it has an address: the cursor has not moved.
    const address = await signalled.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'base',
      purpose: 'session',
      ownerId: 'ses_evm_idle',
    })
    const tx = await payer().payUsdc(address.address, 6_000n)
    await devnet.evm?.mine({ network: BASE, blocks: 1 })
    const found = await w.poll()
    expect(found.idle).toBeUndefined()
    expect(found).toMatchObject({ recorded: 1 })
    expect(statusesOf(tx)).toEqual(['seen'])
    expect(counter.rpc).toBeGreaterThan(0)
  })

  test('default: an ERC-20 and a native transfer are seen, then confirmed at the chain count', async () => {
    const address = await allocate('ses_evm_1')
    const { payUsdc, payNative } = payer()
    const tokenTx = await payUsdc(address.address, 1_234_567n)
    const nativeTx = await payNative(address.address, 10n ** 15n)
    const w = watcher()
    expect(await w.poll()).toMatchObject({ recorded: 2, rewound: false })
    expect(statusesOf(tokenTx)).toEqual(['seen'])
    expect(delivered.find((t) => t.txHash === tokenTx)).toMatchObject({
      asset: 'USDC',
      amount: 1_234_567n,
      decimals: 6,
      confirmations: 2,
      address: { id: address.id },
    })
    expect(delivered.find((t) => t.txHash === nativeTx)).toMatchObject({
      asset: 'ETH',
      amount: 10n ** 15n,
      decimals: 18,
      logIndex: 0,
      confirmations: 1,
    })
    await devnet.evm?.mine({ network: BASE, blocks: 2 })
    await w.poll()
    expect(statusesOf(tokenTx)).toEqual(['seen', 'confirmed'])
    expect(statusesOf(nativeTx)).toEqual(['seen', 'confirmed'])
    // More polls change nothing.
    await w.poll()
    expect(delivered.filter((t) => t.txHash === tokenTx || t.txHash === nativeTx)).toHaveLength(4)
  })

  test('behavior: a reorg that drops a seen transfer reports it reverted', async () => {
    const address = await allocate('ses_evm_reorg')
    const w = watcher()
    const tx = await payer().payUsdc(address.address, 5_000n)
    await w.poll()
    expect(statusesOf(tx)).toEqual(['seen'])
    // Replace the block holding the transfer with an empty one, then grow past the old head.
    await createJsonRpc(devnet.networks[BASE]?.rpcUrl ?? '', { network: BASE }).request('anvil_reorg', [
      1,
      [],
    ])
    await devnet.evm?.mine({ network: BASE, blocks: 1 })
    const result = await w.poll()
    expect(result.rewound).toBe(true)
    expect(statusesOf(tx)).toEqual(['seen', 'reverted'])
    await devnet.evm?.mine({ network: BASE, blocks: 3 })
    await w.poll()
    await w.poll()
    expect(statusesOf(tx)).toEqual(['seen', 'reverted'])
    const row = await h.deps.db
      .selectFrom('incoming_transfers')
      .select('status')
      .where('tx_hash', '=', tx)
      .executeTakeFirst()
    expect(row?.status).toBe('reverted')
  })

  test('behavior: a watcher restarted mid-range (or behind its records) misses nothing and repeats nothing', async () => {
    const address = await allocate('ses_evm_restart')
    await watcher().poll()
    const cursorBefore = await h.deps.db
      .selectFrom('chain_cursors')
      .select('block_number')
      .where('network', '=', BASE)
      .executeTakeFirstOrThrow()
    const { payUsdc } = payer()
    const hashes: string[] = []
    for (let i = 1; i <= 5; i++) {
      hashes.push(await payUsdc(address.address, BigInt(i)))
    }
    // The first instance scans two blocks and "crashes".
    expect(await watcher({ maxBlocksPerPoll: 2 }).poll()).toMatchObject({ scanned: 2, recorded: 2 })
    // The next one starts from the cursor; then the cursor is set back as if a crash had come before its write.
    const second = watcher({ maxBlocksPerPoll: 2 })
    while ((await second.poll()).scanned > 0) {
      // scan until caught up
    }
    await h.deps.db
      .updateTable('chain_cursors')
      .set({ block_number: cursorBefore.block_number, block_hash: null })
      .where('network', '=', BASE)
      .execute()
    const third = watcher()
    expect(await third.poll()).toMatchObject({ found: 5, recorded: 0 })
    const rows = await h.deps.db
      .selectFrom('incoming_transfers')
      .select(['tx_hash', 'amount'])
      .where('address_id', '=', address.id)
      .execute()
    expect(rows.map((r) => r.amount).sort()).toEqual(['1', '2', '3', '4', '5'])
    // Each status delivered once: the first three blocks reached 3 confirmations, the last two did not.
    expect(hashes.map(statusesOf)).toEqual([
      ['seen', 'confirmed'],
      ['seen', 'confirmed'],
      ['seen', 'confirmed'],
      ['seen'],
      ['seen'],
    ])
  })

  test('behavior: with the address signal an idle poll sends no SQL, and an address allocated here is watched from the next poll', async () => {
    const { w, counter, signalled } = signalledWatcher()
    // Earlier tests' transfers reach their confirmations: none stays *seen*.
    await devnet.evm?.mine({ network: BASE, blocks: 3 })
    await w.poll()
    await w.poll()
    counter.statements = 0
    expect(await w.poll()).toMatchObject({ scanned: 0, recorded: 0 })
    expect(counter.statements).toBe(0)
    const address = await signalled.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'base',
      purpose: 'session',
      ownerId: 'ses_evm_signal',
    })
    const tx = await payer().payUsdc(address.address, 7_000n)
    expect(await w.poll()).toMatchObject({ recorded: 1 })
    expect(statusesOf(tx)).toEqual(['seen'])
    // While it is *seen* each poll tracks it, up to its confirmations.
    await devnet.evm?.mine({ network: BASE, blocks: 3 })
    await w.poll()
    expect(statusesOf(tx)).toEqual(['seen', 'confirmed'])
  })

  test('behavior: an address found by a later read (another process, or committed after the signal) has the blocks since the previous read scanned again', async () => {
    const { w, signal } = signalledWatcher()
    await w.poll()
    await w.poll()
    // Allocated without the signal, as another process would: this watcher does not re-read yet.
    const address = await allocate('ses_evm_late')
    const tx = await payer().payUsdc(address.address, 8_000n)
    expect(await w.poll()).toMatchObject({ recorded: 0 })
    expect(statusesOf(tx)).toEqual([])
    await devnet.evm?.mine({ network: BASE, blocks: 1 })
    await w.poll()
    expect(statusesOf(tx)).toEqual([])
    // The next read (here the signal; the backstop in production) finds it: nothing is missed.
    signal.raise(BASE)
    expect(await w.poll()).toMatchObject({ recorded: 1 })
    expect(statusesOf(tx)).toEqual(['seen'])
    expect(await w.poll()).toMatchObject({ recorded: 0 })
    expect(statusesOf(tx)).toEqual(['seen'])
  })
})
