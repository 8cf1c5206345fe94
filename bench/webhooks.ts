// Webhook delivery benchmark, written to bench/results/webhooks.json:
// 1. Throughput: BENCH_WEBHOOK_EVENTS (default 3000) events emitted up front, then 1 and 2 job
//    runners deliver them (one signed POST each; emitEvent fanned them out) to a local receiver
//    that answers 200 at once. On PostgreSQL (BENCH_DATABASE_URL, else TEST_DATABASE_URL; skipped
//    when neither is set) each runner is its own process, as `tollgate worker` would be; on PGlite
//    (one process may open it) the runners share this process.
// 2. Idle latency: one runner waiting on LISTEN/NOTIFY; one event at a time, from the commit of
//    emitEvent to the receiver reading the request; p50/p99 over BENCH_WEBHOOK_SAMPLES (default 200).
// BENCH_WEBHOOK_ENGINES=pglite (or postgres) runs one engine only.
// Every run checks zero lost (each event received) and zero duplicate attempts (each received once,
// one logged attempt per delivery), or the benchmark fails.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  createJobRunner,
  createMerchant,
  createOutboundHttp,
  createWebhookEndpoint,
  type Deps,
  emitEvent,
  inTransaction,
  type JobRunner,
  jobsChannel,
  type OpenedDatabase,
  openDatabase,
  registerWebhookJobs,
} from '@tollgate/service'
import { sql } from 'kysely'
import pg from 'pg'
import { createBenchDeps } from './lib/bench-database.js'

const eventCount = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 3_000)
const latencySamples = Number(process.env.BENCH_WEBHOOK_SAMPLES ?? 200)
const concurrency = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 32)
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const self = fileURLToPath(import.meta.url)

type Engine = 'pglite' | 'postgres'

function createWorker(deps: Deps, opened: OpenedDatabase): { runner: JobRunner; close: () => Promise<void> } {
  const http = createOutboundHttp({ connections: concurrency })
  const runner = createJobRunner({ ...deps, notifications: opened.notifications, concurrency, pollMs: 1_000 })
  registerWebhookJobs(runner, { ...deps, http })
  return {
    runner,
    close: async () => {
      await runner.stop()
      await http.close()
    },
  }
}

// A worker process of the PostgreSQL runs: `BENCH_WEBHOOKS_WORKER=<schema>`; stops on SIGTERM.
if (process.env.BENCH_WEBHOOKS_WORKER) {
  const opened = await openDatabase({
    databaseUrl: postgresUrl,
    schema: process.env.BENCH_WEBHOOKS_WORKER,
    poolSize: concurrency + 4,
  })
  const worker = createWorker(createBenchDeps(opened, { logLevel: 'warn' }), opened)
  await worker.runner.start()
  process.send?.('ready')
  process.once('SIGTERM', () => {
    worker
      .close()
      .then(() => opened.close())
      .then(() => process.exit(0))
  })
} else {
  await main()
}

type Receiver = { url: string; ids: string[]; onRequest?: (id: string) => void; close: () => Promise<void> }

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', ids: [], close: async () => {} }
  const server: Server = createServer((req, res) => {
    const id = String(req.headers['webhook-id'])
    req.resume()
    req.on('end', () => {
      receiver.ids.push(id)
      receiver.onRequest?.(id)
      res.writeHead(200).end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return receiver
}

async function openBenchDatabase(engine: Engine): Promise<{ opened: OpenedDatabase; schema?: string }> {
  if (engine === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-webhooks-'))
    const opened = await openDatabase({ dataDir })
    return {
      opened: {
        ...opened,
        close: () => opened.close().then(() => rm(dataDir, { recursive: true, force: true })),
      },
    }
  }
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`
  const opened = await openDatabase({ databaseUrl: postgresUrl, schema, poolSize: 16 })
  return {
    schema,
    opened: {
      ...opened,
      close: async () => {
        await opened.close()
        const client = new pg.Client({ connectionString: postgresUrl })
        await client.connect()
        await client.query(`drop schema if exists ${schema} cascade`)
        await client.end()
      },
    },
  }
}

async function emitEvents(deps: Deps, merchantId: string, count: number): Promise<Set<string>> {
  const ids = new Set<string>()
  for (let start = 0; start < count; start += 100) {
    await inTransaction(deps.db, async (trx) => {
      for (let i = start; i < Math.min(count, start + 100); i++) {
        const id = await emitEvent(trx, deps, {
          merchantId,
          environment: 'test',
          type: 'payment.completed',
          format: 'current',
          data: { session: { reference: `bench_${i}`, state: 'closed', amount: '10.00' } },
        })
        ids.add(String(id))
      }
    })
  }
  return ids
}

async function startWorkers(
  engine: Engine,
  count: number,
  deps: Deps,
  opened: OpenedDatabase,
  schema: string | undefined,
): Promise<() => Promise<void>> {
  if (engine === 'pglite') {
    const workers = Array.from({ length: count }, () => createWorker(deps, opened))
    await Promise.all(workers.map((w) => w.runner.start()))
    return async () => {
      await Promise.all(workers.map((w) => w.close()))
    }
  }
  const children = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof spawn>>((resolve, reject) => {
          const child = spawn(process.execPath, ['--conditions=tollgate-source', '--import', 'tsx', self], {
            env: { ...process.env, BENCH_WEBHOOKS_WORKER: schema },
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          })
          child.once('message', () => resolve(child))
          child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)))
        }),
    ),
  )
  return async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            child.removeAllListeners('exit')
            child.once('exit', () => resolve())
            child.kill('SIGTERM')
          }),
      ),
    )
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error('timed out waiting for deliveries')
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function assertExactlyOnce(deps: Deps, expected: Set<string>, received: string[]) {
  const unique = new Set(received)
  const lost = [...expected].filter((id) => !unique.has(id)).length
  const duplicates = received.length - unique.size
  const attempts = await deps.db
    .selectFrom('webhook_attempts')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.max('attempt').as('maxAttempt')])
    .executeTakeFirstOrThrow()
  const extraAttempts = Number(attempts.n) - expected.size
  if (lost !== 0 || duplicates !== 0 || extraAttempts !== 0 || Number(attempts.maxAttempt) !== 1) {
    throw new Error(
      `deliveries not exactly once: ${lost} lost, ${duplicates} duplicate, ${extraAttempts} extra attempts`,
    )
  }
  return { lost, duplicates }
}

async function benchThroughput(engine: Engine, workers: number) {
  const { opened, schema } = await openBenchDatabase(engine)
  const receiver = await startReceiver()
  try {
    const deps = createBenchDeps(opened, { logLevel: 'warn' })
    const merchant = await createMerchant(deps, { name: 'Bench merchant' })
    await createWebhookEndpoint(deps, { merchantId: merchant.id, environment: 'test', url: receiver.url })
    const ids = await emitEvents(deps, merchant.id, eventCount)
    // Park the queue while the workers start (a process start is not delivery time), then release it.
    await deps.db
      .updateTable('jobs')
      .set({ run_at: new Date(Date.now() + 3_600_000) })
      .execute()
    const stop = await startWorkers(engine, workers, deps, opened, schema)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const started = performance.now()
    await deps.db.updateTable('jobs').set({ run_at: new Date() }).execute()
    await sql`select pg_notify(${jobsChannel}, 'webhooks.deliver')`.execute(deps.db)
    try {
      await waitFor(() => receiver.ids.length >= eventCount, 600_000)
    } finally {
      await stop()
    }
    const seconds = (performance.now() - started) / 1_000
    const checks = await assertExactlyOnce(deps, ids, receiver.ids)
    const deliveriesPerSecond = Math.round(eventCount / seconds)
    console.log(
      `webhooks ${engine} ${workers} worker(s): ${deliveriesPerSecond} deliveries/s (${eventCount} in ${seconds.toFixed(1)} s)`,
    )
    return {
      engine,
      workers,
      concurrencyPerWorker: concurrency,
      events: eventCount,
      seconds: Number(seconds.toFixed(2)),
      deliveriesPerSecond,
      ...checks,
    }
  } finally {
    await receiver.close()
    await opened.close()
  }
}

function percentile(sorted: number[], p: number): number {
  return Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(1))
}

async function benchIdleLatency(engine: Engine) {
  const { opened, schema } = await openBenchDatabase(engine)
  const receiver = await startReceiver()
  try {
    const deps = createBenchDeps(opened, { logLevel: 'warn' })
    const merchant = await createMerchant(deps, { name: 'Bench merchant' })
    await createWebhookEndpoint(deps, { merchantId: merchant.id, environment: 'test', url: receiver.url })
    const stop = await startWorkers(engine, 1, deps, opened, schema)
    const latencies: number[] = []
    const ids = new Set<string>()
    try {
      for (let i = 0; i < latencySamples; i++) {
        const arrived = new Promise<number>((resolve) => {
          receiver.onRequest = () => resolve(performance.now())
        })
        const committed = await inTransaction(deps.db, async (trx) =>
          emitEvent(trx, deps, {
            merchantId: merchant.id,
            environment: 'test',
            type: 'payment.completed',
            format: 'current',
            data: { session: { reference: `idle_${i}` } },
          }),
        )
        const start = performance.now()
        ids.add(String(committed))
        latencies.push((await arrived) - start)
        // Idle between events, so each is the only work in the queue.
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await waitFor(() => receiver.ids.length >= latencySamples, 10_000)
    } finally {
      await stop()
    }
    const checks = await assertExactlyOnce(deps, ids, receiver.ids)
    latencies.sort((a, b) => a - b)
    const result = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) }
    console.log(
      `webhooks ${engine} idle event-to-delivery latency: p50 ${result.p50} ms, p99 ${result.p99} ms`,
    )
    return { engine, samples: latencySamples, latencyMs: result, ...checks }
  } finally {
    await receiver.close()
    await opened.close()
  }
}

async function main() {
  const engines = (postgresUrl ? ['postgres', 'pglite'] : ['pglite']).filter(
    (engine): engine is Engine =>
      !process.env.BENCH_WEBHOOK_ENGINES || process.env.BENCH_WEBHOOK_ENGINES.includes(engine),
  )
  if (!postgresUrl) {
    console.log('BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL runs skipped')
  }
  const throughput = []
  const idle = []
  for (const engine of engines) {
    for (const workers of [1, 2]) {
      throughput.push(await benchThroughput(engine, workers))
    }
    idle.push(await benchIdleLatency(engine))
  }
  const output = { date: new Date().toISOString(), throughput, idle }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true })
  await writeFile(new URL('./results/webhooks.json', import.meta.url), `${JSON.stringify(output, null, 2)}\n`)
  console.log('wrote bench/results/webhooks.json')
}
