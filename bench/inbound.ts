// Inbound latency benchmark on the devnet, written to bench/results/inbound.json. One devnet with
// Base Sepolia (anvil) and Solana (LiteSVM), the real rails (watchers polling every BENCH_POLL_MS,
// default 250 as in the sandbox; one confirmation on both chains), the job runner delivering
// webhooks (LISTEN/NOTIFY), PGlite (BENCH_INBOUND_ENGINE=postgres with BENCH_DATABASE_URL or
// TEST_DATABASE_URL runs on PostgreSQL instead).
// Sessions: a session on USDC per sample, paid exactly; the time from the block holding the
// payment (the send returning: both devnets produce the block on the transaction) to the
// `payment.completed` webhook arriving at a local receiver. Target: p50 <= poll interval + 200 ms.
// Deposits: USDC to the merchant's static deposit address (parent account, settlement `default`);
// the time from the block holding the deposit to its credit being committed (the deposit row
// `completed`, its ledger posting in the same transaction), p50/p99.
// BENCH_SAMPLES per chain and part (default 20), each paid at a random phase of the poll.
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg } from 'node:os'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import {
  createDefaultSettings,
  createIdGenerator,
  createJobRunner,
  createLogger,
  createMerchant,
  createOutboundHttp,
  createPaymentSession,
  createRails,
  createWebhookEndpoint,
  type Deps,
  registerServiceJobs,
  registerSessionHandlers,
  subscribeDeposits,
  systemClock,
} from '@tollgate/service'
import { createDevnetPayer, createSolanaDevnetPayer } from '@tollgate/service/testing'
import { addDepositIdentity } from '../packages/service/src/deposits/add-deposit-identity.js'
import { createDepositAccount } from '../packages/service/src/deposits/create-deposit-account.js'
import { fundOperatingKeys } from '../packages/service/src/sandbox/fund-operating-keys.js'
import { type BenchEngine, openBenchDatabase } from './lib/bench-database.js'
import { round, summarize } from './lib/stats.js'

const BASE = 'eip155:84532'
const pollMs = Number(process.env.BENCH_POLL_MS ?? 250)
const samples = Number(process.env.BENCH_SAMPLES ?? 20)
const engine: BenchEngine = process.env.BENCH_INBOUND_ENGINE === 'postgres' ? 'postgres' : 'pglite'
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A local webhook receiver that resolves a waiter when an event for a given reference arrives. */
async function startReceiver() {
  const waiters = new Map<string, (at: number) => void>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const at = performance.now()
      res.writeHead(200).end()
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        event: string
        data: Record<string, { reference?: string; id?: string }>
      }
      const object = Object.values(body.data)[0]
      const key = `${body.event}:${object?.reference ?? object?.id ?? ''}`
      waiters.get(key)?.(at)
      waiters.delete(key)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    /** Resolves with the arrival time of the event `type` for the object with this reference. */
    waitFor: (type: string, reference: string) =>
      new Promise<number>((resolve) => waiters.set(`${type}:${reference}`, resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

type Payers = Record<'base' | 'solana', (to: string, amount: bigint) => Promise<string>>

function createPayers(devnet: LocalDevnet, deps: Deps): Payers {
  const evm = createDevnetPayer(devnet, BASE)
  const usdc = deps.rails.chains.findAsset('test', 'solana', 'USDC')
  if (!usdc) {
    throw new Error('devnet without Solana USDC')
  }
  return {
    base: (to, amount) => evm.payToken('USDC', to, amount),
    solana: createSolanaDevnetPayer(devnet, usdc),
  }
}

async function benchSessions(
  deps: Deps,
  devnet: LocalDevnet,
  merchantId: string,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  chain: 'base' | 'solana',
) {
  const pay = createPayers(devnet, deps)[chain]
  const latencies: number[] = []
  for (let i = 0; i < samples; i++) {
    const view = await createPaymentSession(deps, {
      merchantId,
      environment: 'test',
      format: 'current',
      body: {
        title: `bench ${chain} ${i}`,
        amount: '1.00',
        currency: 'USD',
        asset: 'USDC',
        chain,
        customer: { email: `bench-${chain}-${i}@example.com` },
      },
    })
    const { address, crypto_amount: amount, reference } = view.row
    if (!address || amount === null) {
      throw new Error('session without an address')
    }
    // The watcher picks the new address up at its next poll; then pay at a random phase of the poll.
    await sleep(pollMs + Math.random() * pollMs)
    const completed = receiver.waitFor('payment.completed', reference)
    await pay(address, BigInt(amount))
    const mined = performance.now()
    latencies.push((await completed) - mined)
  }
  const result = { chain, samples, pollMs, confirmations: 1, blockToWebhookMs: summarize(latencies) }
  console.log(JSON.stringify(result))
  return result
}

async function benchDeposits(deps: Deps, devnet: LocalDevnet, merchantId: string, chain: 'base' | 'solana') {
  const pay = createPayers(devnet, deps)[chain]
  const scope = { merchantId, environment: 'test' as const }
  const account = await createDepositAccount(deps, { ...scope, format: 'current' })
  const record = await addDepositIdentity(deps, {
    ...scope,
    depositAccountId: account.account.id,
    type: 'static_deposit_address',
    chain,
  })
  const address = record.identities.find((i) => i.chain === chain)?.address
  if (!address) {
    throw new Error(`no ${chain} deposit address`)
  }
  // Notes the transfer inside its recording transaction, after the deposit subscriber credited it;
  // only then is the database polled (every 1 ms) for the committed credit.
  const recorded = new Set<string>()
  const unsubscribe = deps.rails.incoming.subscribe('deposit', async (_db, transfer) => {
    if (transfer.status === 'confirmed') {
      recorded.add(transfer.txHash)
    }
  })
  const latencies: number[] = []
  try {
    await sleep(2 * pollMs)
    for (let i = 0; i < samples; i++) {
      await sleep(Math.random() * pollMs)
      const txHash = await pay(address, 1_000_000n)
      const mined = performance.now()
      while (!recorded.has(txHash)) {
        await sleep(1)
      }
      for (;;) {
        const row = await deps.db
          .selectFrom('deposits')
          .select('status')
          .where('tx_hash', '=', txHash)
          .executeTakeFirst()
        if (row?.status === 'completed') {
          break
        }
        await sleep(1)
      }
      latencies.push(performance.now() - mined)
    }
  } finally {
    unsubscribe()
  }
  const result = { chain, samples, pollMs, confirmations: 1, blockToCreditMs: summarize(latencies) }
  console.log(JSON.stringify(result))
  return result
}

async function main() {
  const devnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  const opened = await openBenchDatabase(engine, { postgresUrl, poolSize: 16 })
  const receiver = await startReceiver()
  const http = createOutboundHttp()
  const base = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'warn' }),
  }
  const rails = createRails(base, {
    networks: devnet.networks,
    pollIntervalMs: pollMs,
    confirmations: { test: { base: 1, solana: 1 } },
  })
  const deps: Deps = { ...base, rails, settings: createDefaultSettings() }
  const runner = createJobRunner({ ...deps, notifications: opened.notifications })
  registerServiceJobs(runner, { ...deps, http })
  const unsubscribe = registerSessionHandlers(deps)
  const unsubscribeDeposits = subscribeDeposits(deps)
  try {
    const merchant = await createMerchant(deps, { name: 'bench inbound' })
    await createWebhookEndpoint(deps, { merchantId: merchant.id, environment: 'test', url: receiver.url })
    // As the sandbox does: the rails' keys pay for sweeps and open Solana token accounts (unfunded,
    // those jobs only retry).
    await fundOperatingKeys(deps, devnet)
    await runner.start()
    await rails.start()
    await sleep(2 * pollMs)
    const sessions = []
    for (const chain of ['base', 'solana'] as const) {
      sessions.push(await benchSessions(deps, devnet, merchant.id, receiver, chain))
    }
    const deposits = []
    for (const chain of ['base', 'solana'] as const) {
      deposits.push(await benchDeposits(deps, devnet, merchant.id, chain))
    }
    const out = {
      date: new Date().toISOString(),
      engine,
      loadAverage: loadavg().map(round),
      sessions,
      deposits,
    }
    await mkdir(new URL('./results/', import.meta.url), { recursive: true })
    await writeFile(new URL('./results/inbound.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`)
    console.log('wrote bench/results/inbound.json')
  } finally {
    unsubscribe()
    unsubscribeDeposits()
    await rails.stop()
    await runner.stop({ timeoutMs: 2_000 })
    await http.close()
    await receiver.close()
    await opened.close()
    await devnet.stop()
  }
}

await main()
