// Throughput and latency of the solana scheme's facilitator (verify and settle, concurrency 1 and
// 32) next to the official @x402/svm exact facilitator, in the same run:
//   ed25519  node:crypto vs WebCrypto (kit's verifySignature) on one signature, to pick the API;
//   scheme   both facilitators against an in-process stub RPC (simulation answers at once): the
//            cost of the scheme code itself;
//   devnet   both against the LiteSVM devnet over HTTP, the devnet in a child process as an RPC
//            node on its own machine would be. `tollgate` uses our batching RPC client,
//            `tollgate-kit-rpc` kit's stock createSolanaRpc (as the official does).
// Verify rows are the best of BENCH_ROUNDS rounds (default 3; the machine is shared). Writes
// bench/results/svm-verify.json.
import { type ChildProcess, spawn } from 'node:child_process'
import { generateKeyPairSync, sign as signEd25519, verify as verifyEd25519 } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Encoder,
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
const VERIFY_OPS = {
  1: Number(process.env.BENCH_VERIFY_OPS_C1 ?? 300),
  32: Number(process.env.BENCH_VERIFY_OPS_C32 ?? 2000),
}
// Every landed transaction closes a devnet block and a blockhash lives 150 blocks, so settle
// batches stay below 150 and their payments are signed right before the batch.
const SETTLE_BATCH = 128
const SETTLE_OPS = {
  1: Number(process.env.BENCH_SETTLE_OPS_C1 ?? 128),
  32: Number(process.env.BENCH_SETTLE_OPS_C32 ?? 512),
}
const CONCURRENCY = [1, 32] as const

type Measurement = {
  ops: number
  failures: number
  seconds: number
  opsPerSecond: number
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number }
  roundsOpsPerSecond?: number[]
}
type Op = (payment: PaymentPayload, requirements: PaymentRequirements) => Promise<boolean>
type Scheme = { verify: Op; settle: Op }
type Signed = { payment: PaymentPayload; requirements: PaymentRequirements }

async function main() {
  const results: Record<string, Measurement> = {}
  const record = (key: string, m: Measurement) => {
    results[key] = m
    report(key, m)
  }
  await benchEd25519(record)
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
    const payTo = await createMerchant(network.rpcUrl)
    const sign = createSigner(network.rpcUrl, payers, asset, payTo, feePayers)
    const verifyPayments = await sign(256)

    const stub = createStubRpc()
    const schemeOnly = {
      tollgate: createOurs(stub, feePayers, asset),
      x402: createOfficial(stub, feePayers),
    }
    await benchVerify('scheme', schemeOnly, verifyPayments, record)

    const devnet = {
      tollgate: createOurs(createSolanaRpcClient(network.rpcUrl), feePayers, asset),
      'tollgate-kit-rpc': createOurs(createSolanaRpc(network.rpcUrl), feePayers, asset),
      x402: createOfficial(createSolanaRpc(network.rpcUrl), feePayers),
    }
    await benchVerify('devnet.verify', devnet, verifyPayments, record)
    for (const concurrency of CONCURRENCY) {
      for (const [name, scheme] of Object.entries(devnet)) {
        record(
          `devnet.settle.${name}.c${concurrency}`,
          await measureSettle(sign, SETTLE_OPS[concurrency], concurrency, scheme.settle),
        )
      }
    }
  } finally {
    child.stdin?.end()
    child.kill('SIGTERM')
  }
  const ratio = (prefix: string, c: number, name = 'tollgate') =>
    round(
      (results[`${prefix}.${name}.c${c}`]?.opsPerSecond ?? 0) /
        (results[`${prefix}.x402.c${c}`]?.opsPerSecond ?? 1),
    )
  const summary = {
    schemeVerifySpeedup: { c1: ratio('scheme', 1), c32: ratio('scheme', 32) },
    devnetVerifySpeedup: { c1: ratio('devnet.verify', 1), c32: ratio('devnet.verify', 32) },
    devnetVerifySpeedupOnKitRpc: {
      c1: ratio('devnet.verify', 1, 'tollgate-kit-rpc'),
      c32: ratio('devnet.verify', 32, 'tollgate-kit-rpc'),
    },
    devnetSettleSpeedup: { c1: ratio('devnet.settle', 1), c32: ratio('devnet.settle', 32) },
  }
  console.log(JSON.stringify(summary, null, 2))
  const setup = {
    machine: '2 cores shared with other work; best of rounds for verify',
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
  await writeFile(join(here, 'results', 'svm-verify.json'), `${JSON.stringify(body, null, 2)}\n`)
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
          await measure(200, concurrency, op)
        }
        rounds.set(name, [
          ...(rounds.get(name) ?? []),
          await measure(VERIFY_OPS[concurrency], concurrency, op),
        ])
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

async function createMerchant(rpcUrl: string): Promise<Address> {
  const merchant = (await generateKeyPairSigner()).address
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
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--devnet'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
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
