// Chain watcher benchmark, written to bench/results/watchers.json. For 10, 1,000 and 10,000
// watched addresses on one devnet chain (PGlite database):
// 1. RPC requests per new block: polls after each mined block that holds a transfer to a watched
//    address, counting every JSON-RPC method call the watcher makes (target: constant in N on EVM).
// 2. Block-to-seen latency: the watcher runs its loop (BENCH_POLL_MS, default 250 as in the
//    sandbox); time from the transfer's block being mined (automine: when the send returns) to the
//    *seen* delivery, p50 and p95 over BENCH_SAMPLES transfers (default 20).
// 3. Watcher memory at 10,000 addresses: heap growth after loading the watched set (after GC).
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { DEFAULT_EVM_NETWORKS, startDevnet, toViemChain, usdcLikeAbi } from '@tollgate/devnet'
import {
  createChainRegistry,
  createEvmWatcher,
  createIdGenerator,
  createIncomingHub,
  createJsonRpc,
  createLogger,
  createMerchant,
  openDatabase,
  systemClock,
} from '@tollgate/service'
import { type Address, createPublicClient, createWalletClient, getAddress, type Hash, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const BASE = 'eip155:84532'
const sizes = [10, 1_000, 10_000]
const pollMs = Number(process.env.BENCH_POLL_MS ?? 250)
const samples = Number(process.env.BENCH_SAMPLES ?? 20)
const blocksPerSize = 10

setFlagsFromString('--expose_gc')
const gc = runInNewContext('gc') as () => void
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

const devnet = await startDevnet({
  solana: false,
  evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
})
const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-watchers-'))
const opened = await openDatabase({ dataDir })
try {
  const network = devnet.networks[BASE]
  const wallet = devnet.wallets.find((w) => w.network === BASE && w.role === 'payer')
  if (!network || !wallet) {
    throw new Error('devnet without Base')
  }
  const deps = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const merchant = await createMerchant(deps, { name: 'bench watchers' })
  const entry = createChainRegistry({ networks: devnet.networks }).get('test', 'base')
  if (!entry) {
    throw new Error('no base entry')
  }
  const payer = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey as Hash),
    chain: toViemChain(network),
    transport: http(),
  })
  const usdc = network.assets.USDC?.address as Address
  const reader = createPublicClient({ chain: toViemChain(network), transport: http(), pollingInterval: 20 })
  const pay = (to: string) =>
    payer.writeContract({
      address: usdc,
      abi: usdcLikeAbi,
      functionName: 'transfer',
      args: [to as Address, 1n],
    })

  let inserted = 0
  const watchedAddresses: string[] = []
  const addAddresses = async (count: number) => {
    for (let done = 0; done < count; done += 1_000) {
      const rows = Array.from({ length: Math.min(1_000, count - done) }, () => {
        inserted += 1
        const address = getAddress(`0x${randomBytes(20).toString('hex')}`)
        watchedAddresses.push(address)
        return {
          id: deps.ids.create('addr'),
          merchant_id: merchant.id,
          environment: 'test' as const,
          chain: 'base',
          network: BASE,
          address,
          purpose: 'session' as const,
          owner_id: `bench_${inserted}`,
          derivation_path: 'bench',
          created_at: new Date(),
        }
      })
      await opened.db.insertInto('deposit_addresses').values(rows).execute()
    }
  }

  const results = []
  for (const size of sizes) {
    await addAddresses(size - inserted)
    let calls = 0
    const counted = createJsonRpc(network.rpcUrl, {
      network: BASE,
      onRequest: () => {
        calls += 1
      },
    })
    const hub = createIncomingHub()
    const seenAt = new Map<string, number>()
    hub.subscribe('session', async (_db, transfer) => {
      if (transfer.status === 'seen' && !seenAt.has(transfer.txHash)) {
        seenAt.set(transfer.txHash, performance.now())
      }
    })
    gc()
    const heapBefore = process.memoryUsage().heapUsed
    const watcher = createEvmWatcher(deps, { entry, rpc: counted, hub })
    await watcher.poll()
    gc()
    const heapBytes = process.memoryUsage().heapUsed - heapBefore

    // 1. Requests per new block (each block holds one transfer to a random watched address).
    const perBlock: number[] = []
    for (let i = 0; i < blocksPerSize; i++) {
      const hash = await pay(watchedAddresses[Math.floor(Math.random() * watchedAddresses.length)] ?? '')
      await reader.waitForTransactionReceipt({ hash })
      calls = 0
      const result = await watcher.poll()
      if (result.scanned !== 1 || result.recorded !== 1) {
        throw new Error(`poll scanned ${result.scanned} blocks and recorded ${result.recorded}`)
      }
      perBlock.push(calls)
    }
    calls = 0
    await watcher.poll()
    const idleCalls = calls

    // 2. Block-to-seen latency with the watcher's loop running.
    let running = true
    const loop = (async () => {
      while (running) {
        await watcher.poll()
        await sleep(pollMs)
      }
    })()
    const latencies: number[] = []
    for (let i = 0; i < samples; i++) {
      await sleep(Math.random() * pollMs)
      const hash = await pay(watchedAddresses[Math.floor(Math.random() * watchedAddresses.length)] ?? '')
      const minedAt = performance.now()
      while (!seenAt.has(hash)) {
        await sleep(5)
      }
      latencies.push((seenAt.get(hash) ?? minedAt) - minedAt)
    }
    running = false
    await loop
    const row = {
      watchedAddresses: size,
      rpcCallsPerBlock: {
        min: Math.min(...perBlock),
        max: Math.max(...perBlock),
        mean: perBlock.reduce((a, b) => a + b, 0) / perBlock.length,
      },
      rpcCallsIdlePoll: idleCalls,
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p95: Math.round(percentile(latencies, 95)),
        pollMs,
      },
      watcherHeapBytes: heapBytes,
    }
    console.log(JSON.stringify(row))
    results.push(row)
  }
  const out = { chain: 'evm (anvil, Base Sepolia id)', date: new Date().toISOString(), results }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true })
  await writeFile(new URL('./results/watchers.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`)
} finally {
  await opened.close()
  await rm(dataDir, { recursive: true, force: true })
  await devnet.stop()
}
