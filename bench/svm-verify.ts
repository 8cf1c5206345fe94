// Throughput and latency of the solana scheme's facilitator (verify and settle, concurrency 1 and
// 32) next to the official @x402/svm exact facilitator, in the same run:
//   ed25519  node:crypto vs WebCrypto (kit's verifySignature) on one signature, to pick the API;
//   scheme   both facilitators against an in-process stub RPC (simulation answers at once): the
//            cost of the scheme code itself;
//   devnet   both against the LiteSVM devnet over HTTP, the devnet in a child process as an RPC
//            node on its own machine would be. `tollgate` uses our batching RPC client,
//            `tollgate-kit-rpc` kit's stock createSolanaRpc (as the official does).
// Verify rows are the best of BENCH_ROUNDS rounds (default 3; the machine is shared), after a
// warm-up of BENCH_VERIFY_WARMUP verifies (default 5000) per contender and concurrency: both
// facilitators (and the devnet) take 2,000-4,000 verifies to reach their steady speed (JIT), ours
// from about 850 to 290 us at concurrency 1, the reference from about 2,700 to 1,900 us. Each
// verify row also keeps every round's rate and the 1-minute load average, and the summary the
// ratio of each round (ours / reference, measured back to back). A separate pass
// (not timed) runs the devnet contenders through a counting proxy and reports the HTTP requests
// and JSON-RPC calls per verify, by method, at both concurrencies. Writes
// bench/results/svm-verify.json. BENCH_PARTS (comma list of ed25519, scheme, devnet.verify,
// devnet.settle; default all) and BENCH_CONTENDERS (default all) narrow a run;
// BENCH_DEVNET_NODE_ARGS (e.g. "--cpu-prof") is passed to the devnet child's node.
import { type ChildProcess, spawn } from 'node:child_process'
import { generateKeyPairSync, sign as signEd25519, verify as verifyEd25519 } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase58Encoder,
  getProgramDerivedAddress,
  type KeyPairSigner,
  type SignatureBytes,
  verifySignature,
} from '@solana/kit'
import {
  type Asset,
  createAssetRegistry,
  type PaymentPayload,
  type PaymentRequirements,
  SOLANA_DEVNET,
} from '@tollgate/core'
import { type DevnetManifest, startDevnet } from '@tollgate/devnet'
import {
  createSolanaClient,
  createSolanaFacilitator,
  createSolanaRpcClient,
  createSolanaServer,
  type SolanaFacilitatorRpc,
} from '@tollgate/svm'
import type { PaymentPayload as X402Payload, PaymentRequirements as X402Requirements } from '@x402/core/types'
import { type FacilitatorRpcClient, toFacilitatorSvmSigner } from '@x402/svm'
import { ExactSvmScheme as OfficialFacilitator } from '@x402/svm/exact/facilitator'

const here = dirname(fileURLToPath(import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// At concurrency 1 ours answers in about 0.3 ms, so a few hundred verifies last a tenth of a
// second: too short to outlast the noise of a shared machine.
const VERIFY_OPS = {
  1: Number(process.env.BENCH_VERIFY_OPS_C1 ?? 2000),
  32: Number(process.env.BENCH_VERIFY_OPS_C32 ?? 3000),
}
const VERIFY_WARMUP = Number(process.env.BENCH_VERIFY_WARMUP ?? 5000)
// Every landed transaction closes a devnet block and a blockhash lives 150 blocks, so settle
// batches stay below 150 and their payments are signed right before the batch.
const SETTLE_BATCH = 128
const SETTLE_OPS = {
  1: Number(process.env.BENCH_SETTLE_OPS_C1 ?? 128),
  32: Number(process.env.BENCH_SETTLE_OPS_C32 ?? 512),
}
const CONCURRENCY = [1, 32] as const
const PARTS = (process.env.BENCH_PARTS ?? 'ed25519,scheme,devnet.verify,devnet.settle').split(',')
const CONTENDERS = process.env.BENCH_CONTENDERS?.split(',')
const pick = <T>(all: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(all).filter(([name]) => !CONTENDERS || CONTENDERS.includes(name)))

type Measurement = {
  ops: number
  failures: number
  seconds: number
  opsPerSecond: number
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number }
  roundsOpsPerSecond?: number[]
  loadAverage1m?: number
}
/** What one contender sent the node per verify: HTTP requests, and JSON-RPC calls by method. */
type RpcTraffic = { verifies: number; httpRequestsPerVerify: number; callsPerVerify: Record<string, number> }
type Op = (payment: PaymentPayload, requirements: PaymentRequirements) => Promise<boolean>
type Scheme = { verify: Op; settle: Op }
type Signed = { payment: PaymentPayload; requirements: PaymentRequirements }

async function main() {
  const results: Record<string, Measurement> = {}
  let traffic: Record<string, RpcTraffic> = {}
  const record = (key: string, m: Measurement) => {
    results[key] = m
    report(key, m)
  }
  const loadBefore = loadavg()
  if (PARTS.includes('ed25519')) {
    await benchEd25519(record)
  }
  const { child, manifest } = await startDevnetChild()
  try {
    const network = manifest.networks[SOLANA_DEVNET]
    const usdc = network?.assets.USDC
    if (!network || !usdc) {
      throw new Error('devnet has no Solana USDC')
    }
    const keysOf = (role: 'payer' | 'relayer') =>
      Promise.all(
        manifest.wallets
          .filter((w) => w.network === SOLANA_DEVNET && w.role === role)
          .map((w) => createKeyPairSignerFromBytes(getBase58Encoder().encode(w.privateKey))),
      )
    const [payers, feePayers] = await Promise.all([keysOf('payer'), keysOf('relayer')])
    const asset: Asset = { ...usdc, network: SOLANA_DEVNET, transferMethods: ['solana'] }
    const payTo = await createMerchant(network.rpcUrl, asset)
    const sign = createSigner(network.rpcUrl, payers, asset, payTo, feePayers)
    const verifyPayments = await sign(256)

    const stub = createStubRpc()
    const schemeOnly = pick({
      tollgate: createOurs(stub, feePayers, asset),
      x402: createOfficial(stub, feePayers),
    })
    if (PARTS.includes('scheme')) {
      await benchVerify('scheme', schemeOnly, verifyPayments, record)
    }

    // Each facilitator with the RPC client it would use: ours with its batching client (what the
    // CLI builds), the official one with kit's createSolanaRpc (what it builds from a URL itself).
    const devnetContenders = (rpcUrl: string) =>
      pick({
        tollgate: createOurs(createSolanaRpcClient(rpcUrl), feePayers, asset),
        'tollgate-kit-rpc': createOurs(createSolanaRpc(rpcUrl), feePayers, asset),
        x402: createOfficial(createSolanaRpc(rpcUrl), feePayers),
      })
    const devnet = devnetContenders(network.rpcUrl)
    if (PARTS.includes('devnet.verify')) {
      await benchVerify('devnet.verify', devnet, verifyPayments, record)
      traffic = await countTraffic(network.rpcUrl, devnetContenders, verifyPayments)
    }
    for (const concurrency of PARTS.includes('devnet.settle') ? CONCURRENCY : []) {
      for (const [name, scheme] of Object.entries(devnet)) {
        record(
          `devnet.settle.${name}.c${concurrency}`,
          await measureSettle(sign, SETTLE_OPS[concurrency], concurrency, scheme.settle),
        )
      }
    }
  } finally {
    // Closing stdin lets the child exit by itself (and write a --cpu-prof profile); kill it if it lingers.
    const exited =
      child.exitCode === null && child.signalCode === null
        ? new Promise((resolve) => child.once('exit', resolve))
        : Promise.resolve()
    child.stdin?.end()
    const timer = setTimeout(() => child.kill('SIGTERM'), 5000)
    await exited
    clearTimeout(timer)
  }
  const ratio = (prefix: string, c: number, name = 'tollgate') =>
    round(
      (results[`${prefix}.${name}.c${c}`]?.opsPerSecond ?? 0) /
        (results[`${prefix}.x402.c${c}`]?.opsPerSecond ?? 1),
    )
  // Ours / reference in each round: the two were measured back to back, under the same load.
  const roundRatios = (prefix: string, c: number) => {
    const ours = results[`${prefix}.tollgate.c${c}`]?.roundsOpsPerSecond ?? []
    const theirs = results[`${prefix}.x402.c${c}`]?.roundsOpsPerSecond ?? []
    return ours.map((o, i) => round(o / (theirs[i] ?? Number.NaN)))
  }
  const summary = {
    schemeVerifySpeedup: { c1: ratio('scheme', 1), c32: ratio('scheme', 32) },
    devnetVerifySpeedup: { c1: ratio('devnet.verify', 1), c32: ratio('devnet.verify', 32) },
    devnetVerifySpeedupOnKitRpc: {
      c1: ratio('devnet.verify', 1, 'tollgate-kit-rpc'),
      c32: ratio('devnet.verify', 32, 'tollgate-kit-rpc'),
    },
    devnetSettleSpeedup: { c1: ratio('devnet.settle', 1), c32: ratio('devnet.settle', 32) },
    devnetVerifyRoundRatios: { c1: roundRatios('devnet.verify', 1), c32: roundRatios('devnet.verify', 32) },
    rpcTrafficPerVerify: traffic,
  }
  console.log(JSON.stringify(summary, null, 2))
  const setup = {
    machine: `${cpus().length} cores (${cpus()[0]?.model}) shared with other work; best of rounds for verify`,
    loadAverage1m: { before: round(loadBefore[0] ?? 0), after: round(loadavg()[0] ?? 0) },
    parts: PARTS,
    verifyOps: { ...VERIFY_OPS, warmup: VERIFY_WARMUP },
    rpcClients: {
      tollgate: '@tollgate/svm createSolanaRpcClient (batching, keep-alive; what the CLI uses)',
      'tollgate-kit-rpc': "kit's createSolanaRpc",
      x402: "kit's createSolanaRpc (what @x402/svm's toFacilitatorSvmSigner builds from a URL)",
    },
    devnet: 'LiteSVM JSON-RPC server in a child process, 127.0.0.1',
    feePayers: 'the same keys for both facilitators',
    rounds: ROUNDS,
  }
  const body = {
    benchmark: 'svm-verify',
    date: new Date().toISOString(),
    node: process.version,
    setup,
    summary,
    results,
  }
  console.log(
    `load average (1 min): ${setup.loadAverage1m.before} before, ${setup.loadAverage1m.after} after`,
  )
  // A narrowed run does not replace the full results.
  const partial = process.env.BENCH_PARTS !== undefined || CONTENDERS !== undefined
  const file = partial ? 'svm-verify.partial.json' : 'svm-verify.json'
  await writeFile(join(here, 'results', file), `${JSON.stringify(body, null, 2)}\n`)
}

// One signature over a 400-byte message (a payment message's size), both APIs, sequential and 32 at a time.
async function benchEd25519(record: (key: string, m: Measurement) => void) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const message = Buffer.alloc(400, 7)
  const signature = signEd25519(null, message, privateKey)
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12)
  const cryptoKey = await crypto.subtle.importKey('raw', new Uint8Array(raw), 'Ed25519', false, ['verify'])
  const apis: Record<string, () => Promise<boolean>> = {
    'node-crypto': async () => verifyEd25519(null, message, publicKey, signature),
    'kit-verifySignature': () =>
      verifySignature(cryptoKey, new Uint8Array(signature) as SignatureBytes, new Uint8Array(message)),
  }
  for (const concurrency of CONCURRENCY) {
    for (const [name, op] of Object.entries(apis)) {
      await measure(2000, concurrency, op)
      record(`ed25519.${name}.c${concurrency}`, await best(() => measure(20_000, concurrency, op)))
    }
  }
}

async function benchVerify(
  prefix: string,
  schemes: Record<string, Scheme>,
  payments: Signed[],
  record: (key: string, m: Measurement) => void,
) {
  for (const concurrency of CONCURRENCY) {
    const rounds = new Map<string, Measurement[]>()
    for (let r = 0; r < ROUNDS; r++) {
      // Interleaved rounds, so load from elsewhere on the machine falls on every contender alike.
      for (const [name, scheme] of Object.entries(schemes)) {
        const op = (i: number) => run(payments, i, scheme.verify)
        if (r === 0) {
          await measure(VERIFY_WARMUP, concurrency, op)
        }
        const m = await measure(VERIFY_OPS[concurrency], concurrency, op)
        rounds.set(name, [...(rounds.get(name) ?? []), { ...m, loadAverage1m: round(loadavg()[0] ?? 0) }])
      }
    }
    for (const [name, list] of rounds) {
      const top = list.reduce((a, b) => (b.opsPerSecond > a.opsPerSecond ? b : a))
      record(`${prefix}.${name}.c${concurrency}`, {
        ...top,
        roundsOpsPerSecond: list.map((m) => m.opsPerSecond),
      })
    }
  }
}

/**
 * Runs every contender's verifies through a local proxy to the devnet that counts HTTP requests
 * and JSON-RPC calls by method; fresh contenders, so nothing is counted from the timed runs.
 */
async function countTraffic(
  rpcUrl: string,
  contenders: (rpcUrl: string) => Record<string, Scheme>,
  payments: Signed[],
): Promise<Record<string, RpcTraffic>> {
  const proxy = await startCountingProxy(rpcUrl)
  const traffic: Record<string, RpcTraffic> = {}
  try {
    for (const [name, scheme] of Object.entries(contenders(proxy.url))) {
      for (const concurrency of CONCURRENCY) {
        const verifies = concurrency === 1 ? 100 : 512
        proxy.reset()
        const m = await measure(verifies, concurrency, (i) => run(payments, i, scheme.verify))
        if (m.failures > 0) {
          throw new Error(`${name}: ${m.failures} verifies failed through the counting proxy`)
        }
        traffic[`${name}.c${concurrency}`] = {
          verifies,
          httpRequestsPerVerify: round(proxy.requests / verifies),
          callsPerVerify: Object.fromEntries(
            Object.entries(proxy.calls).map(([method, n]) => [method, round(n / verifies)]),
          ),
        }
      }
    }
  } finally {
    await proxy.close()
  }
  return traffic
}

async function startCountingProxy(target: string) {
  const counts = { requests: 0, calls: {} as Record<string, number> }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      counts.requests++
      const parsed = JSON.parse(body) as { method?: string } | { method?: string }[]
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        const method = call.method ?? '?'
        counts.calls[method] = (counts.calls[method] ?? 0) + 1
      }
      const upstream = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      const text = await upstream.text()
      response
        .writeHead(upstream.status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        })
        .end(text)
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return counts.requests
    },
    get calls() {
      return counts.calls
    },
    reset() {
      counts.requests = 0
      counts.calls = {}
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function best(run: () => Promise<Measurement>): Promise<Measurement> {
  const list: Measurement[] = []
  for (let r = 0; r < ROUNDS; r++) {
    list.push(await run())
  }
  const top = list.reduce((a, b) => (b.opsPerSecond > a.opsPerSecond ? b : a))
  return { ...top, roundsOpsPerSecond: list.map((m) => m.opsPerSecond) }
}

function createOurs(rpc: unknown, feePayers: KeyPairSigner[], asset: Asset): Scheme {
  const facilitator = createSolanaFacilitator({
    networks: { [SOLANA_DEVNET]: { rpc: rpc as SolanaFacilitatorRpc, feePayers } },
    assets: createAssetRegistry([asset]),
  })
  const context = { recordBroadcast: async () => {} }
  return {
    verify: async (p, r) => (await facilitator.verify(p, r)).isValid,
    settle: async (p, r) => (await facilitator.settle(p, r, context)).success,
  }
}

function createOfficial(rpc: unknown, feePayers: KeyPairSigner[]): Scheme {
  // A per-network map; the payments name feePayers[0], which is in both facilitators' pools.
  const facilitator = new OfficialFacilitator(
    toFacilitatorSvmSigner(feePayers[0] as KeyPairSigner, { [SOLANA_DEVNET]: rpc as FacilitatorRpcClient }),
  )
  return {
    verify: async (p, r) => (await facilitator.verify(p as X402Payload, r as X402Requirements)).isValid,
    settle: async (p, r) => (await facilitator.settle(p as X402Payload, r as X402Requirements)).success,
  }
}

// An RPC whose simulateTransaction succeeds at once: isolates the facilitator's own work.
function createStubRpc() {
  const answer = {
    context: { slot: 1n },
    value: { err: null, logs: [], accounts: null, unitsConsumed: 6000n, returnData: null },
  }
  return { simulateTransaction: () => ({ send: async () => answer }) }
}

// Signs `count` payments (round-robin over the payers) against the current blockhash.
function createSigner(
  rpcUrl: string,
  payers: KeyPairSigner[],
  asset: Asset,
  payTo: Address,
  feePayers: KeyPairSigner[],
) {
  const rpc = createSolanaRpc(rpcUrl)
  const clients = payers.map((signer) => createSolanaClient({ signer, rpcs: { [SOLANA_DEVNET]: rpc } }))
  const requirements = createSolanaServer().createRequirements({
    asset,
    amount: 1000n,
    payTo,
    maxTimeoutSeconds: 60,
    supportedKind: {
      x402Version: 2,
      scheme: 'exact',
      network: SOLANA_DEVNET,
      extra: { feePayer: feePayers[0]?.address },
    },
  })
  return async (count: number): Promise<Signed[]> => {
    const { value } = await rpc.getLatestBlockhash().send()
    const hinted = { ...requirements, extra: { ...requirements.extra, recentBlockhash: value.blockhash } }
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const client = clients[i % clients.length]
        if (!client) {
          throw new Error('no payer')
        }
        const payload = await client.createPayload(hinted)
        return {
          payment: { x402Version: 2, accepted: requirements, payload } as PaymentPayload,
          requirements,
        }
      }),
    )
  }
}

const ASSOCIATED_TOKEN_PROGRAM = address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')

/**
 * A merchant wallet with a USDC token account. The reference derives the merchant's token account
 * (a PDA) on every verify, trying bump seeds from 255 down, and a random wallet sometimes needs
 * several tries: that made its speed differ by up to 2x between runs. The merchant is chosen so
 * that the first try succeeds, the reference's best case (ours derives it once and remembers it).
 */
async function createMerchant(rpcUrl: string, asset: Asset): Promise<Address> {
  const encoder = getAddressEncoder()
  let merchant: Address
  for (;;) {
    merchant = (await generateKeyPairSigner()).address
    const [, bump] = await getProgramDerivedAddress({
      programAddress: ASSOCIATED_TOKEN_PROGRAM,
      seeds: [
        encoder.encode(merchant),
        encoder.encode(address(asset.tokenProgram ?? 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')),
        encoder.encode(address(asset.address)),
      ],
    })
    if (bump === 255) {
      break
    }
  }
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tollgate_fund',
      params: [{ address: merchant, asset: 'USDC', amount: '0' }],
    }),
  })
  if (!response.ok) {
    throw new Error(`tollgate_fund: HTTP ${response.status}`)
  }
  return merchant
}

function run(signed: Signed[], i: number, op: Op) {
  const entry = signed[i % signed.length] as Signed
  return op(entry.payment, entry.requirements)
}

async function measureSettle(
  sign: (count: number) => Promise<Signed[]>,
  ops: number,
  concurrency: number,
  settle: Op,
): Promise<Measurement> {
  const samples: number[] = []
  let failures = 0
  let seconds = 0
  for (let done = 0; done < ops; done += SETTLE_BATCH) {
    const batch = await sign(Math.min(SETTLE_BATCH, ops - done))
    const part = await measure(batch.length, concurrency, (i) => run(batch, i, settle), samples)
    failures += part.failures
    seconds += part.seconds
  }
  return summarize(samples, failures, seconds)
}

async function measure(
  ops: number,
  concurrency: number,
  op: (i: number) => Promise<boolean>,
  into: number[] = [],
): Promise<Measurement> {
  const samples: number[] = []
  let failures = 0
  let next = 0
  const started = performance.now()
  const worker = async () => {
    while (next < ops) {
      const i = next++
      const t = performance.now()
      const ok = await op(i).catch(() => false)
      samples.push(performance.now() - t)
      if (!ok) {
        failures++
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  into.push(...samples)
  return summarize(samples, failures, (performance.now() - started) / 1000)
}

function summarize(samples: number[], failures: number, seconds: number): Measurement {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  return {
    ops: samples.length,
    failures,
    seconds: round(seconds),
    opsPerSecond: round(samples.length / seconds),
    latencyMs: {
      mean: round(samples.reduce((s, x) => s + x, 0) / Math.max(1, samples.length)),
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: round(sorted.at(-1) ?? 0),
    },
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100
}

function report(label: string, m: Measurement) {
  console.log(
    `${label.padEnd(36)} ${String(m.opsPerSecond).padStart(9)} ops/s  p50 ${m.latencyMs.p50} ms  p99 ${m.latencyMs.p99} ms  failures ${m.failures}/${m.ops}`,
  )
}

async function startDevnetChild(): Promise<{ child: ChildProcess; manifest: DevnetManifest }> {
  const nodeArgs = (process.env.BENCH_DEVNET_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      '--conditions=tollgate-source',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--devnet',
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  for await (const line of lines) {
    if (line.startsWith('{')) {
      return { child, manifest: JSON.parse(line) as DevnetManifest }
    }
  }
  throw new Error('devnet child exited before printing its manifest')
}

// The child: the Solana devnet alone, until its stdin closes.
if (process.argv[2] === '--devnet') {
  const devnet = await startDevnet({ evm: false, solana: { payers: 8, relayers: 2 } })
  const manifest: DevnetManifest = { networks: devnet.networks, wallets: devnet.wallets }
  console.log(JSON.stringify(manifest))
  process.stdin.resume()
  process.stdin.on('end', () => void devnet.stop().then(() => process.exit(0)))
} else {
  await main()
}
