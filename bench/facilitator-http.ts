// Our facilitator vs the reference one (@x402/core x402Facilitator + @x402/evm ExactEvmScheme),
// both served over HTTP on the same anvil devnet (ours by its Node listener, as `tollgate facilitator`
// serves it; the reference with hono) (Base Sepolia USDC, eip3009), in one run:
// - verify: throughput and p50/p99 at 1, 16 and 64 connections (autocannon, 64 distinct valid payments);
// - settle: throughput, p50/p99 and failed payments at concurrency 1, 16 and 64 (fresh payments).
// Each facilitator runs in its own child process (this file with `--serve <target>`), so the load
// generator does not share its event loop. Targets: "ours" (relayer pool of 4 keys, settlement
// store on PGlite), "ours-1key" (same, one key) and "reference" (one key, as its signer holds one).
// Writes bench/results/facilitator-http.json.
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { createAssetRegistry, type PaymentRequirements } from '@tollgate/core'
import {
  DEFAULT_EVM_NETWORKS,
  type DevnetManifest,
  type DevnetNetwork,
  startDevnet,
  toViemChain,
} from '@tollgate/devnet'
import {
  createEip3009Client,
  createEip3009Facilitator,
  createEip3009Server,
  createRelayer,
} from '@tollgate/evm'
import {
  createFacilitator,
  createFacilitatorListener,
  createPostgresSettlementStore,
  openSettlementDatabase,
} from '@tollgate/facilitator'
import { x402Facilitator } from '@x402/core/facilitator'
import type { PaymentPayload as X402Payload, PaymentRequirements as X402Requirements } from '@x402/core/types'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as ReferenceEvmFacilitator } from '@x402/evm/exact/facilitator'
import autocannon from 'autocannon'
import { Hono } from 'hono'
import { sql } from 'kysely'
import { createPublicClient, createWalletClient, type Hex, http, publicActions } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const here = dirname(fileURLToPath(import.meta.url))
const NETWORK = 'eip155:84532'
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL
const TARGETS = (
  process.env.BENCH_TARGETS ?? `reference,ours-1key,ours${DATABASE_URL ? ',ours-pg' : ''}`
).split(',') as Target[]
const VERIFY_SECONDS = Number(process.env.BENCH_VERIFY_SECONDS ?? 10)
const VERIFY_CONNECTIONS = (process.env.BENCH_VERIFY_CONNECTIONS ?? '1,16,64').split(',').map(Number)
const SETTLE_RUNS: { concurrency: number; payments: number }[] = [
  { concurrency: 1, payments: Number(process.env.BENCH_SETTLE_C1 ?? 30) },
  { concurrency: 16, payments: Number(process.env.BENCH_SETTLE_C16 ?? 160) },
  { concurrency: 64, payments: Number(process.env.BENCH_SETTLE_C64 ?? 384) },
]

/** Cleanups the serving child runs on SIGTERM. */
const onStop: (() => Promise<void>)[] = []

type Target = 'reference' | 'ours-1key' | 'ours' | 'ours-pg'
type Stats = { requests: number; seconds: number; perSecond: number; p50Ms: number; p99Ms: number }
/** `okPerSecond`: settled payments per second (failed ones excluded). */
type SettleStats = Stats & { okPerSecond: number; failed: number; reasons: Record<string, number> }

if (process.argv[2] === '--serve') {
  await serveTarget(
    process.argv[3] as Target,
    JSON.parse(process.env.BENCH_MANIFEST ?? '{}') as DevnetManifest,
  )
} else {
  await main()
}

async function main(): Promise<void> {
  const devnet = await startDevnet({
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === NETWORK), payers: 1, relayers: 4 },
    solana: false,
  })
  const manifest: DevnetManifest = { networks: devnet.networks, wallets: devnet.wallets }
  const results: Record<
    string,
    { verify: Record<string, VerifyStats>; settle: Record<string, SettleStats> }
  > = {}
  try {
    for (const target of TARGETS) {
      const child = await startChild(target, manifest)
      try {
        const verify: Record<string, VerifyStats> = {}
        for (const connections of VERIFY_CONNECTIONS) {
          verify[`c${connections}`] = await benchVerify(child.url, manifest, connections)
        }
        const settle: Record<string, SettleStats> = {}
        for (const run of SETTLE_RUNS) {
          settle[`c${run.concurrency}`] = await benchSettle(
            child.url,
            manifest,
            run.concurrency,
            run.payments,
          )
        }
        results[target] = { verify, settle }
        console.log(target, JSON.stringify(results[target]))
      } finally {
        await stopChild(child.process)
      }
    }
  } finally {
    await devnet.stop()
  }
  const report = summarize(results)
  await writeFile(join(here, 'results', 'facilitator-http.json'), `${JSON.stringify(report, null, 2)}\n`)
  console.table(report.table)
  console.dir(report.targets, { depth: 3 })
}

function summarize(
  results: Record<string, { verify: Record<string, Stats>; settle: Record<string, SettleStats> }>,
) {
  const reference = results.reference
  const ratio = (a = 0, b = 0) => (b > 0 ? Math.round((a / b) * 100) / 100 : null)
  const table = Object.entries(results).flatMap(([target, r]) => [
    ...Object.entries(r.verify).map(([c, v]) => ({
      target,
      op: `verify ${c}`,
      perSecond: v.perSecond,
      p50Ms: v.p50Ms,
      p99Ms: v.p99Ms,
      failed: 0,
    })),
    ...Object.entries(r.settle).map(([c, s]) => ({
      target,
      op: `settle ${c}`,
      perSecond: s.okPerSecond,
      p50Ms: s.p50Ms,
      p99Ms: s.p99Ms,
      failed: s.failed,
    })),
  ])
  // Each of our variants against the reference. Settle throughput counts payments that settled:
  // a failed settle is not served load.
  const targets = Object.fromEntries(
    Object.entries(results)
      .filter(([target]) => target !== 'reference')
      .map(([target, ours]) => {
        // The 10x goal is read at 64 connections: at one connection both sides wait one node
        // round trip per verify (reported next to it, as verifyThroughputRatioByConnections).
        const byConnections = Object.fromEntries(
          Object.entries(ours.verify).map(([c, v]) => [
            c,
            ratio(v.perSecond, reference?.verify[c]?.perSecond),
          ]),
        )
        const verify = byConnections.c64 ?? null
        const settle64 = ratio(ours.settle.c64?.okPerSecond, reference?.settle.c64?.okPerSecond)
        const failed = Object.values(ours.settle).reduce((n, s) => n + s.failed, 0)
        const p50 = { ours: ours.settle.c1?.p50Ms ?? Infinity, reference: reference?.settle.c1?.p50Ms ?? 0 }
        return [
          target,
          {
            verifyThroughputRatio: {
              value: verify,
              goal: '>= 10 at 64 connections',
              met: (verify ?? 0) >= 10,
            },
            verifyThroughputRatioByConnections: byConnections,
            settleP50AtC1Ms: { ...p50, goal: 'no slower', met: p50.ours <= p50.reference },
            settledPerSecondRatioAtC64: { value: settle64, goal: '>= 5', met: (settle64 ?? 0) >= 5 },
            failedPayments: { value: failed, goal: 0, met: failed === 0 },
          },
        ]
      }),
  )
  return {
    date: new Date().toISOString(),
    // The 1-minute load average at the end: this machine is shared, and numbers scale with it.
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, loadAverage: loadavg()[0] },
    setup: {
      network: NETWORK,
      chain: 'anvil (automine)',
      scheme: 'eip3009 (exact, transferWithAuthorization)',
      verify: {
        seconds: VERIFY_SECONDS,
        connections: VERIFY_CONNECTIONS,
        payload: '64 distinct valid payments from one payer, one round robin across connections',
      },
      settle: SETTLE_RUNS,
      ours: 'createFacilitator + createFacilitatorApp; settlement store on PGlite ("ours", "ours-1key") or PostgreSQL ("ours-pg"); 4 relayer keys unless "-1key"',
      reference: '@x402/core x402Facilitator + @x402/evm ExactEvmScheme (one signer key), hono routes',
    },
    results,
    table,
    targets,
  }
}

function createPayments(manifest: DevnetManifest, count: number) {
  const network = manifest.networks[NETWORK]
  const payer = manifest.wallets.find((w) => w.network === NETWORK && w.role === 'payer')
  const usdc = network?.assets.USDC
  if (!network || !payer || !usdc) {
    throw new Error('devnet has no payer or USDC on Base Sepolia')
  }
  const assets = createAssetRegistry([{ ...usdc, network: NETWORK }])
  const client = createEip3009Client({ account: privateKeyToAccount(payer.privateKey as Hex) })
  const requirements: PaymentRequirements = createEip3009Server().createRequirements({
    asset: assets.get(NETWORK, 'USDC'),
    amount: 1000n,
    payTo: privateKeyToAccount(generatePrivateKey()).address,
  })
  return Promise.all(
    Array.from({ length: count }, async () =>
      JSON.stringify({
        x402Version: 2,
        paymentRequirements: requirements,
        paymentPayload: {
          x402Version: 2,
          resource: { url: 'http://bench.test/paid', description: '', mimeType: '' },
          accepted: requirements,
          payload: await client.createPayload(requirements),
        },
      }),
    ),
  )
}

type VerifyStats = Stats & { non2xx: number; errors: number; timeouts: number }

async function benchVerify(url: string, manifest: DevnetManifest, connections: number): Promise<VerifyStats> {
  // Distinct valid payments (as real traffic is); each connection cycles through them.
  const bodies = await createPayments(manifest, 64)
  const body = bodies[0] ?? ''
  const probe = await fetch(`${url}/verify`, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/json' },
  })
  const answer = (await probe.json()) as { isValid?: boolean }
  if (!answer.isValid) {
    throw new Error(`verify probe failed: ${JSON.stringify(answer)}`)
  }
  let next = 0
  const result = await autocannon({
    url: `${url}/verify`,
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    // One round robin over the payments shared by all connections, so the requests in flight at
    // any moment carry distinct payments (per-connection lists would start in lockstep).
    requests: [
      { method: 'POST', setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) },
    ],
    connections,
    duration: VERIFY_SECONDS,
  })
  return {
    requests: result.requests.total,
    seconds: VERIFY_SECONDS,
    perSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }
}

async function benchSettle(
  url: string,
  manifest: DevnetManifest,
  concurrency: number,
  count: number,
): Promise<SettleStats> {
  const bodies = await createPayments(manifest, count)
  const latencies: number[] = []
  const reasons: Record<string, number> = {}
  let failed = 0
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++] ?? ''
      const t0 = performance.now()
      try {
        const response = await fetch(`${url}/settle`, {
          method: 'POST',
          body,
          headers: { 'Content-Type': 'application/json' },
        })
        const answer = (await response.json()) as { success?: boolean; errorReason?: string; error?: string }
        if (!answer.success) {
          failed += 1
          const reason = (answer.errorReason ?? answer.error ?? `http ${response.status}`).slice(0, 80)
          reasons[reason] = (reasons[reason] ?? 0) + 1
        }
      } catch (error) {
        failed += 1
        reasons.fetch_failed = (reasons.fetch_failed ?? 0) + 1
        void error
      }
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10
  return {
    requests: count,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round((count / seconds) * 10) / 10,
    okPerSecond: Math.round(((count - failed) / seconds) * 10) / 10,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    failed,
    reasons,
  }
}

async function startChild(
  target: Target,
  manifest: DevnetManifest,
): Promise<{ process: ChildProcess; url: string }> {
  // BENCH_CHILD_NODE_ARGS (e.g. "--cpu-prof") profiles the facilitator under test.
  const nodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const script = fileURLToPath(import.meta.url)
  const child = spawn(
    process.execPath,
    [...nodeArgs, '--conditions=tollgate-source', '--import', 'tsx', script, '--serve', target],
    {
      env: { ...process.env, BENCH_MANIFEST: JSON.stringify(manifest) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${target} server exited with ${code}`)))
    lines.on('line', (line) => {
      if (line.startsWith('LISTENING ')) {
        resolve(line.slice('LISTENING '.length))
      }
    })
  })
  return { process: child, url }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) {
    return
  }
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

// ---- child process: one facilitator behind hono on a free port; prints "LISTENING <url>" ----

async function serveTarget(target: Target, manifest: DevnetManifest): Promise<void> {
  const network = manifest.networks[NETWORK] as DevnetNetwork
  const relayerKeys = manifest.wallets
    .filter((w) => w.network === NETWORK && w.role === 'relayer')
    .map((w) => w.privateKey as Hex)
  // Ours is served as `tollgate facilitator` serves it (its Node listener), the reference with hono.
  const server =
    target === 'reference'
      ? serve({
          fetch: createReferenceApp(network, relayerKeys[0] as Hex).fetch,
          port: 0,
          hostname: '127.0.0.1',
        })
      : createServer(await createOurListener(target, network, relayerKeys)).listen(0, '127.0.0.1')
  server.once('listening', () => {
    console.log(`LISTENING http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  })
  process.once('SIGTERM', () =>
    server.close(async () => {
      for (const stop of onStop) {
        await stop()
      }
      process.exit(0)
    }),
  )
}

async function createOurListener(
  target: Target,
  network: DevnetNetwork,
  keys: Hex[],
): Promise<ReturnType<typeof createFacilitatorListener>> {
  const client = createPublicClient({ chain: toViemChain(network), transport: http(), pollingInterval: 50 })
  const relayer = createRelayer({
    network: NETWORK,
    client,
    accounts: (target === 'ours-1key' ? keys.slice(0, 1) : keys).map((key) => privateKeyToAccount(key)),
    pollingIntervalMs: 50,
  })
  const assets = createAssetRegistry(Object.values(network.assets).map((a) => ({ ...a, network: NETWORK })))
  const schema = `bench_facilitator_${process.pid}`
  const db = await openSettlementDatabase(
    target === 'ours-pg' && DATABASE_URL ? { databaseUrl: DATABASE_URL } : {},
  )
  const facilitator = createFacilitator({
    schemes: [createEip3009Facilitator({ networks: { [NETWORK]: { client, relayer } }, assets })],
    store: await createPostgresSettlementStore({ db, schema }),
  })
  onStop.push(async () => {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db)
    await db.destroy()
  })
  return createFacilitatorListener(facilitator)
}

// The reference facilitator served as its example server does: parse the body, call
// verify/settle, 400 on missing fields, 500 on exceptions.
function createReferenceApp(network: DevnetNetwork, key: Hex): Hono {
  const account = privateKeyToAccount(key)
  const wallet = createWalletClient({
    account,
    chain: toViemChain(network),
    transport: http(),
    pollingInterval: 50,
  }).extend(publicActions)
  // The reference signer is typed loosely (abi: unknown[]); viem's typed methods take the same objects.
  type Loose<F extends (args: never) => unknown> = Parameters<F>[0]
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    readContract: (args) => wallet.readContract(args as Loose<typeof wallet.readContract>),
    verifyTypedData: (args) => wallet.verifyTypedData(args as Loose<typeof wallet.verifyTypedData>),
    writeContract: (args) => wallet.writeContract(args as Loose<typeof wallet.writeContract>),
    sendTransaction: (args) => wallet.sendTransaction(args),
    waitForTransactionReceipt: (args) => wallet.waitForTransactionReceipt(args),
    getCode: (args) => wallet.getCode(args),
  })
  const facilitator = new x402Facilitator().register(NETWORK, new ReferenceEvmFacilitator(signer))
  const app = new Hono()
  const handle =
    (run: (p: X402Payload, r: X402Requirements) => Promise<unknown>) => async (c: import('hono').Context) => {
      const body = (await c.req.json()) as {
        paymentPayload?: X402Payload
        paymentRequirements?: X402Requirements
      }
      if (!body.paymentPayload || !body.paymentRequirements) {
        return c.json({ error: 'Missing paymentPayload or paymentRequirements' }, 400)
      }
      try {
        return c.json(await run(body.paymentPayload, body.paymentRequirements))
      } catch (error) {
        return c.json({ error: error instanceof Error ? error.message : String(error) }, 500)
      }
    }
  app.post(
    '/verify',
    handle((p, r) => facilitator.verify(p, r)),
  )
  app.post(
    '/settle',
    handle((p, r) => facilitator.settle(p, r)),
  )
  app.get('/supported', (c) => c.json(facilitator.getSupported()))
  return app
}
