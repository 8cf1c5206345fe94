// Chain watcher benchmark, written to bench/results/watchers.json. For 10, 1,000 and 10,000
// watched addresses on one devnet chain of each family (EVM: anvil with Base Sepolia's id;
// Solana: LiteSVM), PGlite database:
// 1. RPC requests per poll: after a block holding one transfer to a watched address, and idle
//    (nothing new), counting every JSON-RPC method the watcher calls. Targets: constant in N on
//    EVM; at most ceil(N/100) + 1 per idle poll on Solana (N addresses, each with a USDC account
//    read every poll and its SOL read in round robin).
// 2. Block-to-seen latency: the watcher polls in a loop (BENCH_POLL_MS, default 250 as in the
//    sandbox); time from the transfer's block (the send returning; both devnets produce the block
//    on the transaction) to its *seen* delivery, p50, p95 and p99 over BENCH_SAMPLES (default 50).
// 3. Watcher memory: what the watcher retains after its polls, i.e. the heap (after GC) with the
//    watcher minus the heap once it is dropped, so the devnet's own state (in this process for
//    LiteSVM) is not counted.
// 4. An idle poll's wall time (p50 of 10) and CPU time (mean): the process's, so it includes the
//    devnet's RPC server (the chains run in this process or its children: anvil is a child, LiteSVM
//    is in process). CPU time survives a loaded machine better than the latencies.
// Each row carries the load average (1 minute) at its start and end. BENCH_CHAINS=solana (or evm)
// measures one family only.
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { getAddressDecoder } from '@solana/kit'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, SOLANA_DEVNET_NETWORK, startDevnet } from '@tollgate/devnet'
import {
  type ChainEntry,
  createChainRegistry,
  createEvmWatcher,
  createIdGenerator,
  createIncomingHub,
  createJsonRpc,
  createLogger,
  createMerchant,
  createNetworkSignal,
  createSolanaWatcher,
  type Deps,
  openDatabase,
  systemClock,
} from '@tollgate/service'
import { createDevnetPayer, sendSplTransfer } from '@tollgate/service/testing'
import { getAddress } from 'viem'

const BASE = 'eip155:84532'
const sizes = [10, 1_000, 10_000]
const pollMs = Number(process.env.BENCH_POLL_MS ?? 250)
const samples = Number(process.env.BENCH_SAMPLES ?? 50)
const blocksPerSize = 10
const chains = (process.env.BENCH_CHAINS ?? 'evm,solana').split(',')

setFlagsFromString('--expose_gc')
const gc = runInNewContext('gc') as () => void
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length

type WatcherDeps = Pick<Deps, 'db' | 'ids' | 'clock' | 'logger'>

/** One chain under test: how to make a random watched address, pay one of the payees, build a watcher. */
type Subject = {
  name: string
  entry: ChainEntry
  randomAddress(): string
  /** Addresses the benchmark can pay (real keys), already in the watched set. */
  payees: string[]
  /** Sends one transfer; resolves once its block exists. */
  pay(to: string): Promise<string>
  createWatcher(
    rpcUrl: string,
    onCall: () => void,
    hub: ReturnType<typeof createIncomingHub>,
  ): { poll(): Promise<unknown> }
}

async function measure(deps: WatcherDeps, merchantId: string, subject: Subject, rpcUrl: string) {
  let inserted = 0
  const insert = async (addresses: string[]) => {
    for (let done = 0; done < addresses.length; done += 1_000) {
      const rows = addresses.slice(done, done + 1_000).map((address) => {
        inserted += 1
        return {
          id: deps.ids.create('addr'),
          merchant_id: merchantId,
          environment: 'test' as const,
          chain: subject.entry.chain,
          network: subject.entry.network,
          address,
          purpose: 'session' as const,
          owner_id: `bench_${subject.name}_${inserted}`,
          derivation_path: 'bench',
          created_at: new Date(),
        }
      })
      await deps.db.insertInto('deposit_addresses').values(rows).execute()
    }
  }
  await insert(subject.payees)
  const results = []
  for (const size of sizes) {
    const loadAtStart = loadavg()[0] ?? 0
    await insert(Array.from({ length: size - inserted }, () => subject.randomAddress()))
    let calls = 0
    const hub = createIncomingHub()
    const seenAt = new Map<string, number>()
    hub.subscribe('session', async (_db, transfer) => {
      if (transfer.status === 'seen' && !seenAt.has(transfer.txHash)) {
        seenAt.set(transfer.txHash, performance.now())
      }
    })
    let watcher: { poll(): Promise<unknown> } | undefined = subject.createWatcher(
      rpcUrl,
      () => {
        calls += 1
      },
      hub,
    )
    const poll = () => (watcher ? watcher.poll() : Promise.reject(new Error('watcher dropped')))
    await poll()
    const payee = () => subject.payees[Math.floor(Math.random() * subject.payees.length)] ?? ''

    const perTransfer: number[] = []
    for (let i = 0; i < blocksPerSize; i++) {
      const hash = await subject.pay(payee())
      calls = 0
      await poll()
      if (!seenAt.has(hash)) {
        throw new Error(`${subject.name}: a poll after the block did not see ${hash}`)
      }
      perTransfer.push(calls)
    }
    const idle: number[] = []
    const idleWallMs: number[] = []
    const cpuBefore = process.cpuUsage()
    for (let i = 0; i < 10; i++) {
      calls = 0
      const started = performance.now()
      await poll()
      idleWallMs.push(performance.now() - started)
      idle.push(calls)
    }
    const cpu = process.cpuUsage(cpuBefore)

    let running = true
    const loop = (async () => {
      while (running) {
        await poll()
        await sleep(pollMs)
      }
    })()
    const latencies: number[] = []
    for (let i = 0; i < samples; i++) {
      await sleep(Math.random() * pollMs)
      const hash = await subject.pay(payee())
      const minedAt = performance.now()
      while (!seenAt.has(hash)) {
        await sleep(5)
      }
      latencies.push((seenAt.get(hash) ?? minedAt) - minedAt)
    }
    running = false
    await loop
    gc()
    const heapWithWatcher = process.memoryUsage().heapUsed
    watcher = undefined
    gc()
    const heapBytes = heapWithWatcher - process.memoryUsage().heapUsed
    const row = {
      chain: subject.name,
      watchedAddresses: size,
      rpcCallsPerPollWithOneTransfer: {
        min: Math.min(...perTransfer),
        max: Math.max(...perTransfer),
        mean: mean(perTransfer),
      },
      rpcCallsPerIdlePoll: Math.max(...idle),
      idlePoll: {
        wallMsP50: Math.round(percentile(idleWallMs, 50) * 10) / 10,
        cpuMsMean: Math.round(((cpu.user + cpu.system) / 1000 / idle.length) * 10) / 10,
      },
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p95: Math.round(percentile(latencies, 95)),
        p99: Math.round(percentile(latencies, 99)),
        pollMs,
      },
      watcherHeapBytes: heapBytes,
      loadAverage1m: { start: loadAtStart, end: loadavg()[0] ?? 0 },
    }
    console.log(JSON.stringify(row))
    results.push(row)
  }
  return results
}

function evmSubject(devnet: LocalDevnet, deps: WatcherDeps): Subject {
  const entry = createChainRegistry({ networks: devnet.networks }).get('test', 'base')
  if (!entry) {
    throw new Error('devnet without Base')
  }
  const payer = createDevnetPayer(devnet, BASE)
  const randomAddress = () => getAddress(`0x${randomBytes(20).toString('hex')}`)
  return {
    name: 'evm',
    entry,
    randomAddress,
    payees: Array.from({ length: 5 }, randomAddress),
    pay: (to) => payer.payToken('USDC', to, 1n),
    createWatcher: (rpcUrl, onCall, hub) =>
      createEvmWatcher(deps, {
        entry,
        hub,
        rpc: createJsonRpc(rpcUrl, { network: BASE, onRequest: onCall }),
        // As the rails wire it: addresses and seen transfers are re-read on a signal or every 5 s.
        addressSignal: createNetworkSignal(),
      }),
  }
}

async function solanaSubject(devnet: LocalDevnet, deps: WatcherDeps): Promise<Subject> {
  const network = devnet.networks[SOLANA_DEVNET_NETWORK]
  const wallet = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
  // One SPL asset (USDC) as measured before the devnet had a USDT mint, so the runs stay comparable;
  // with USDC and USDT (the sandbox, mainnet) an idle poll reads 2N token accounts: ceil(2N/100) + 1.
  const full = createChainRegistry({ networks: devnet.networks }).get('test', 'solana')
  const entry = full && { ...full, assets: full.assets.filter((a) => a.symbol !== 'USDT') }
  const usdc = entry?.assets.find((a) => a.symbol === 'USDC')
  if (!network || !wallet || !entry || !usdc) {
    throw new Error('devnet without Solana USDC')
  }
  const randomAddress = () => getAddressDecoder().decode(randomBytes(32))
  const payees = Array.from({ length: 5 }, randomAddress)
  for (const payee of payees) {
    // Their USDC accounts exist (empty) before they are watched.
    await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: payee, asset: 'USDC', amount: 0n })
  }
  const rpc = createJsonRpc(network.rpcUrl, { network: SOLANA_DEVNET_NETWORK })
  return {
    name: 'solana',
    entry,
    randomAddress,
    payees,
    pay: (to) =>
      sendSplTransfer(rpc, {
        secret: wallet.privateKey,
        payer: wallet.address,
        owner: to,
        asset: usdc,
        amount: 1n,
      }),
    createWatcher: (rpcUrl, onCall, hub) =>
      createSolanaWatcher(deps, {
        entry,
        hub,
        rpc: createJsonRpc(rpcUrl, { network: SOLANA_DEVNET_NETWORK, onRequest: onCall }),
        addressSignal: createNetworkSignal(),
      }),
  }
}

const devnet = await startDevnet({
  evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
})
const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-watchers-'))
const opened = await openDatabase({ dataDir })
try {
  const deps = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const merchant = await createMerchant(deps, { name: 'bench watchers' })
  const evm = chains.includes('evm')
    ? await measure(deps, merchant.id, evmSubject(devnet, deps), devnet.networks[BASE]?.rpcUrl ?? '')
    : []
  const solana = chains.includes('solana')
    ? await measure(
        deps,
        merchant.id,
        await solanaSubject(devnet, deps),
        devnet.networks[SOLANA_DEVNET_NETWORK]?.rpcUrl ?? '',
      )
    : []
  const out = { date: new Date().toISOString(), pollMs, samples, results: [...evm, ...solana] }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true })
  await writeFile(new URL('./results/watchers.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`)
} finally {
  await opened.close()
  await rm(dataDir, { recursive: true, force: true })
  await devnet.stop()
}
