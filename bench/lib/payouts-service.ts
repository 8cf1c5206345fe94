// The service under the payouts benchmark (bench/payouts.ts), in its own process as `npm start` runs
// it: so the load generator's CPU and event loop are not the service's, and the service's CPU can be
// read from /proc or profiled with `--cpu-prof`. Started by fork(); configured and driven over IPC:
// the parent sends `{ id, call, args }`, the child answers `{ id, result }` or `{ id, error }`.
// What it composes is what the sandbox composes for payouts (start-sandbox.ts): the database, the
// rails (crypto on the parent's devnet, through its RPC proxy), the HTTP app, the job runner with
// every service job, and the deposit watchers; plus a statement counter on the database.
// Devnet funding (treasury, fee payers) is asked of the parent, which owns the devnet.
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector'
import { loadavg } from 'node:os'
import { serve } from '@hono/node-server'
import type { DevnetNetwork } from '@tollgate/devnet'
import {
  checkLedgerInvariants,
  createApiKey,
  createApp,
  createDefaultSettings,
  createIdGenerator,
  createJobRunner,
  createLogger,
  createMerchant,
  createOutboundHttp,
  createRails,
  createRateLimiter,
  createRecipient,
  createWebhookMetrics,
  type Deps,
  fundBalance,
  registerServiceJobs,
  sandboxPayoutAccounts,
  sandboxPayoutHolder,
  setPayoutDailyLimit,
  subscribeDeposits,
  subscribePayoutRails,
  systemClock,
} from '@tollgate/service'
import { type KyselyPlugin, type RootOperationNode, sql } from 'kysely'
import pg from 'pg'
import { Registry } from 'prom-client'
import { type BenchEngine, openBenchDatabase } from './bench-database.js'

/** What the parent asks for: a fiat (NGN bank) or a crypto (USDC on Base) payout service. */
export type PayoutsServiceConfig = {
  engine: BenchEngine
  postgresUrl?: string | undefined
  poolSize: number
  mode: 'fiat' | 'crypto'
  /** Crypto: the devnet's networks, the Base rpcUrl pointing at the counting proxy. */
  networks?: Record<string, DevnetNetwork>
  network?: string
}

/** What the service answers once listening. */
export type PayoutsServiceReady = {
  port: number
  apiKey: string
  recipientId: string
  treasury?: { address: string; feePayers: string[] }
}

type Message = { id: number; call: string; args: unknown[] }

const send = (message: unknown) => process.send?.(message)
let nextFundId = 0
const pendingFunds = new Map<number, (error?: string) => void>()

// devnet.fund, done by the parent (amounts as strings: IPC is JSON).
function fund(parameters: { network: string; address: string; asset?: string; amount: bigint }) {
  const id = nextFundId++
  return new Promise<void>((resolve, reject) => {
    pendingFunds.set(id, (error) => (error ? reject(new Error(error)) : resolve()))
    send({ fund: { id, ...parameters, amount: parameters.amount.toString() } })
  })
}

let service: Awaited<ReturnType<typeof startService>> | undefined

async function startService(config: PayoutsServiceConfig) {
  const opened = await openBenchDatabase(config.engine, {
    postgresUrl: config.postgresUrl,
    poolSize: config.poolSize,
  })
  const statements = countStatements()
  const base = {
    db: opened.db.withPlugin(statements),
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: 'silent' }),
  }
  const rails =
    config.mode === 'fiat'
      ? // Provider callbacks are fired after the measurement (fireFiatCallbacks), not by a job during it.
        createRails(base, { fiat: { callbackDelayMs: 3_600_000 } })
      : createRails(base, {
          masterSeed: 'e9'.repeat(64),
          networks: config.networks ?? {},
          // The sandbox's watcher and receipt poll interval (start-sandbox.ts).
          pollIntervalMs: 250,
        })
  const deps: Deps = { ...base, rails, settings: createDefaultSettings() }
  const stops: (() => unknown)[] = [() => opened.close()]
  const unsubscribeDeposits = subscribeDeposits(deps)
  stops.push(unsubscribeDeposits)
  const webhookHttp = createOutboundHttp()
  stops.push(() => webhookHttp.close())
  const runner = createJobRunner({ ...deps, notifications: opened.notifications })
  registerServiceJobs(runner, {
    ...deps,
    http: webhookHttp,
    metrics: createWebhookMetrics(new Registry()),
  })
  await runner.start()
  stops.push(() => runner.stop({ timeoutMs: 5_000 }))

  let treasury: PayoutsServiceReady['treasury']
  let recipientId: string
  let merchantId: string
  if (config.mode === 'crypto') {
    const network = config.networks?.[config.network ?? '']
    const t = rails.crypto.getTreasury('test', 'base')
    if (!t) {
      throw new Error('no treasury on base')
    }
    treasury = { address: t.address, feePayers: [...t.feePayers] }
    await fund({ network: config.network ?? '', address: t.address, amount: 10n ** 21n })
    await fund({ network: config.network ?? '', address: t.address, asset: 'USDC', amount: 10n ** 12n })
    for (const payer of t.feePayers) {
      await fund({ network: config.network ?? '', address: payer, amount: 10n ** 20n })
    }
    if (!network?.assets.USDC) {
      throw new Error('no USDC on base')
    }
    await rails.start()
    stops.push(() => rails.stop())
    const merchant = await createMerchant(deps, { name: 'bench crypto' })
    merchantId = merchant.id
    await fundBalance(deps, { merchantId, currency: 'USDC', amount: '100000' })
    const saved = await createRecipient(deps, {
      merchantId,
      environment: 'test',
      recipient: {
        type: 'crypto_address',
        details: { chain: 'base', address: '0x000000000000000000000000000000000000b0b0' },
      },
    })
    recipientId = saved.recipient.id
  } else {
    const merchant = await createMerchant(deps, { name: sandboxPayoutHolder })
    merchantId = merchant.id
    await setPayoutDailyLimit(deps, { merchantId, limitUsd: '100000000' })
    await fundBalance(deps, { merchantId, currency: 'NGN', amount: '1000000000' })
    const { recipient } = await createRecipient(deps, {
      merchantId,
      environment: 'test',
      recipient: {
        type: 'ngn_bank_account',
        details: { accountNumber: sandboxPayoutAccounts.success, bankCode: '058' },
      },
    })
    recipientId = recipient.id
  }
  const key = await createApiKey(deps, { merchantId, environment: 'test' })
  // createApp no longer subscribes payouts to the rails' answers: the composition does.
  const unsubscribePayouts = subscribePayoutRails(deps)
  stops.push(async () => unsubscribePayouts())
  const app = createApp(deps, { rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }) })
  const server = await new Promise<{ port: number; close: () => void }>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({ port: info.port, close: () => s.close() }),
    )
  })
  stops.push(() => server.close())
  const ready: PayoutsServiceReady = {
    port: server.port,
    apiKey: key.key,
    recipientId,
    ...(treasury ? { treasury } : {}),
  }
  return { deps, opened, statements, rails, ready, stops }
}

function need() {
  if (!service) {
    throw new Error('service not started')
  }
  return service
}

// Payouts by final status, read without the statement counter (it is the benchmark's reading).
async function finalCounts() {
  const rows = await need()
    .opened.db.selectFrom('payouts')
    .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
    .groupBy('status')
    .execute()
  const by = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]))
  return {
    success: by.success ?? 0,
    failed: by.failed ?? 0,
    total: rows.reduce((s, r) => s + Number(r.n), 0),
  }
}

// Fires the bank callback of every processing payout until every payout is final (the job runner's
// work, done here after the measurement), then checks the ledger.
async function finishFiat() {
  const { opened, rails, deps } = need()
  for (let i = 0; i < 200; i++) {
    const processing = await opened.db
      .selectFrom('payouts')
      .select('id')
      .where('status', 'not in', ['success', 'failed'])
      .execute()
    if (processing.length === 0) {
      break
    }
    for (const { id } of processing) {
      // Not made yet (its request is still running) or completed meanwhile: the next round sees it.
      await rails.sandboxControls?.completeFiatTransfer({ id }).catch(() => undefined)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const counts = await finalCounts()
  const unfinished = counts.total - counts.success - counts.failed
  const violations = await checkLedgerInvariants({ ...deps, db: opened.db })
  return { unfinished, violations }
}

// Samples pg_stat_activity every 100 ms (PostgreSQL only) until stopped.
type LockWaits = { busy: number; waitingForLock: number; waitingIn: Record<string, number> }
let lockSampler: { stop: () => Promise<LockWaits> } | undefined
function sampleLockWaits() {
  const db = need().opened.db
  const samples: { busy: number; waitingForLock: number }[] = []
  // Which statements wait, by their first words (after the CTE names): summed over the samples.
  const waitingIn: Record<string, number> = {}
  let running = true
  const loop = (async () => {
    while (running) {
      const { rows } = await sql<{ state: string | null; wait: string | null; query: string }>`
        select state, wait_event_type as wait, left(query, 200) as query
        from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
      `.execute(db)
      const waiting = rows.filter((r) => r.wait === 'Lock')
      for (const r of waiting) {
        const what = describeWaiting(r.query)
        waitingIn[what] = (waitingIn[what] ?? 0) + 1
      }
      samples.push({
        busy: rows.filter((r) => r.state !== null && r.state !== 'idle').length,
        waitingForLock: waiting.length,
      })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      const mean = (f: (x: (typeof samples)[number]) => number) =>
        Math.round((samples.reduce((sum, x) => sum + f(x), 0) / Math.max(1, samples.length)) * 100) / 100
      const perSample = Object.fromEntries(
        Object.entries(waitingIn).map(([k, n]) => [
          k,
          Math.round((n / Math.max(1, samples.length)) * 100) / 100,
        ]),
      )
      return {
        busy: mean((x) => x.busy),
        waitingForLock: mean((x) => x.waitingForLock),
        waitingIn: perSample,
      }
    },
  }
}

// A waiting statement named by what it is: the payout reserve (one or a batch), the settlement's ledger
// post, or its first words.
function describeWaiting(query: string): string {
  if (query.includes('ledger_batch_tx')) {
    return 'reserve (batch)'
  }
  if (query.includes('payout_usage')) {
    return 'reserve'
  }
  if (query.includes('ledger_target')) {
    return 'post/void'
  }
  return query.replace(/\s+/g, ' ').trim().slice(0, 40)
}

const calls: Record<string, (...args: never[]) => unknown> = {
  start: async (config: PayoutsServiceConfig) => {
    service = await startService(config)
    return service.ready
  },
  finalCounts,
  finishFiat,
  // Statements so far and this process's CPU (ms), for per-payout figures over a window.
  stats: () => {
    const usage = process.resourceUsage()
    return {
      statements: need().statements.count,
      commits: commits.count,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      loadAverage: loadavg(),
    }
  },
  trace: (on: boolean) => {
    const { statements } = need()
    const trace = statements.trace
    statements.trace = on ? [] : undefined
    return trace ?? []
  },
  startLockWaits: () => {
    lockSampler = need().opened.engine === 'postgres' ? sampleLockWaits() : undefined
    return null
  },
  stopLockWaits: async () => (await lockSampler?.stop()) ?? null,
  // A CPU profile of a window of this process (Chrome DevTools format), written by stopProfile.
  startProfile: async () => {
    profiler = await startProfile()
    return null
  },
  stopProfile: async (file: string) => {
    await profiler?.stop(file)
    profiler = undefined
    return null
  },
  stop: async () => {
    for (const stop of (service?.stops ?? []).reverse()) {
      await stop()
    }
    service = undefined
    setImmediate(() => process.exit(0))
    return null
  },
}

process.on('message', (raw) => {
  const message = raw as Message | { funded: { id: number; error?: string } }
  if ('funded' in message) {
    pendingFunds.get(message.funded.id)?.(message.funded.error)
    pendingFunds.delete(message.funded.id)
    return
  }
  const fn = calls[message.call]
  Promise.resolve()
    .then(() => (fn as (...args: unknown[]) => unknown)(...message.args))
    .then(
      (result) => send({ id: message.id, result }),
      (error: unknown) =>
        send({
          id: message.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    )
})

let profiler: Awaited<ReturnType<typeof startProfile>> | undefined
async function startProfile() {
  const session = new Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    )
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: 500 })
  await post('Profiler.start')
  return {
    stop: async (file: string) => {
      const { profile } = (await post('Profiler.stop')) as { profile: object }
      await writeFile(file, JSON.stringify(profile))
      session.disconnect()
    },
  }
}

// Counts the commits of explicit transactions (BEGIN … COMMIT) that this process's pg clients send;
// each statement outside a transaction commits on its own and is counted in `statements` only.
const commits = { count: 0 }
const clientQuery = pg.Client.prototype.query
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (typeof args[0] === 'string' && /^\s*commit\b/i.test(args[0])) {
    commits.count++
  }
  return (clientQuery as (...a: unknown[]) => unknown).apply(this, args)
} as typeof clientQuery

// Counts statements sent to the database (BEGIN/COMMIT excluded): every compiled query passes here.
function countStatements(): KyselyPlugin & { count: number; trace: string[] | undefined } {
  return {
    count: 0,
    trace: undefined,
    transformQuery(args) {
      this.count++
      this.trace?.push(describeQuery(args.node))
      return args.node
    },
    transformResult: async (args) => args.result,
  }
}

// "select payouts", "update crypto_sends", …: what BENCH_TRACE=1 prints for the warm-up payout.
function describeQuery(node: RootOperationNode): string {
  const json = JSON.stringify(node, (_k, v) => (typeof v === 'bigint' ? String(v) : v))
  const table = /"identifier":\{"kind":"IdentifierNode","name":"([a-z_0-9]+)"/.exec(json)?.[1] ?? ''
  return `${node.kind.replace(/QueryNode$|Node$/, '')} ${table}`.trim()
}
