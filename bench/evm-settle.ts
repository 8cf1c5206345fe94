// Settle latency and throughput of the eip3009 scheme next to the official @x402/evm exact
// facilitator, in one process against the same anvil devnet (Base Sepolia fixtures, automine):
// concurrency 1 (latency), 16 and 64 (throughput and failed payments). Ours sends through a
// relayer with 4 fee-payer keys and local nonces; the official scheme uses a viem wallet client
// (one key, nonce read per transaction), as its docs set it up. Every payment is freshly signed
// (settling consumes the authorization). Writes bench/results/evm-settle.json.
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type Asset,
  createAssetRegistry,
  type PaymentPayload,
  type PaymentRequirements,
} from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet, toViemChain } from '@tollgate/devnet'
import {
  createEip3009Client,
  createEip3009Facilitator,
  createEip3009Server,
  createRelayer,
} from '@tollgate/evm'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as OfficialFacilitator } from '@x402/evm/exact/facilitator'
import { createPublicClient, createWalletClient, type Hex, http, publicActions } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'

const here = dirname(fileURLToPath(import.meta.url))
const BASE = 'eip155:84532'
const OPS: Record<number, number> = {
  1: Number(process.env.BENCH_SETTLE_OPS_C1 ?? 40),
  16: Number(process.env.BENCH_SETTLE_OPS_C16 ?? 256),
  64: Number(process.env.BENCH_SETTLE_OPS_C64 ?? 512),
}
const CONCURRENCY = [1, 16, 64]

type Measurement = {
  ops: number
  failures: number
  failureReasons: Record<string, number>
  seconds: number
  opsPerSecond: number
  /** Settled payments per second: failed settles are not throughput. */
  successfulOpsPerSecond: number
  latencyMs: { mean: number; p50: number; p99: number; max: number }
}
type Settle = (payment: PaymentPayload) => Promise<{ success: boolean; errorReason?: string | undefined }>

async function main() {
  const devnet = await startDevnet({
    solana: false,
    evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => n.network === BASE) },
  })
  try {
    const net = devnet.networks[BASE]
    if (!net) {
      throw new Error('no Base devnet')
    }
    const assets = createAssetRegistry(Object.values(net.assets).map((a): Asset => ({ ...a, network: BASE })))
    const requirements = createEip3009Server().createRequirements({
      asset: assets.get(BASE, 'USDC'),
      amount: 1_000n,
      payTo: '0x00000000000000000000000000000000000000b6',
    })
    const payers = Array.from({ length: 64 }, () => privateKeyToAccount(generatePrivateKey()))
    await Promise.all(
      payers.map((a) =>
        devnet.fund({ network: BASE, address: a.address, asset: 'USDC', amount: 10n ** 12n }),
      ),
    )
    const chain = toViemChain(net)
    const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
    const feePayers = devnet.wallets
      .filter((w) => w.network === BASE && w.role === 'relayer')
      .map((w) => privateKeyToAccount(w.privateKey as Hex))
    const [officialKey, ...ourKeys] = feePayers
    if (!officialKey || ourKeys.length === 0) {
      throw new Error('not enough relayer keys')
    }
    // Ours gets the other keys (3 of the devnet's 4; a 4th is made and funded so the pool has 4).
    const fourth = privateKeyToAccount(generatePrivateKey())
    await devnet.fund({ network: BASE, address: fourth.address, amount: 10n ** 21n })
    const relayer = createRelayer({
      network: BASE,
      client,
      accounts: [...ourKeys, fourth],
      pollingIntervalMs: 50,
    })
    const ours = createEip3009Facilitator({
      networks: { [BASE]: { client, relayer } },
      assets,
      receiptTimeoutMs: 60_000,
    })
    const wallet = createWalletClient({
      account: officialKey,
      chain,
      transport: http(),
      pollingInterval: 50,
    }).extend(publicActions)
    const verifyTypedData = (args: object) =>
      wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0])
    const official = new OfficialFacilitator(
      toFacilitatorEvmSigner({ ...wallet, verifyTypedData, address: officialKey.address }),
    )
    const settlers: Record<string, Settle> = {
      tollgate: (p) => ours.settle(p, requirements, { recordBroadcast: async () => undefined }),
      x402: (p) => official.settle(p as never, requirements as never),
    }
    const results: Record<string, Measurement> = {}
    for (const concurrency of CONCURRENCY) {
      for (const [name, settle] of Object.entries(settlers)) {
        const payments = await sign(payers, requirements, OPS[concurrency] ?? 16)
        const m = await measure(payments, concurrency, settle)
        results[`settle.${name}.c${concurrency}`] = m
        console.log(
          `settle.${name}.c${concurrency}`.padEnd(24),
          `${m.opsPerSecond} ops/s (${m.successfulOpsPerSecond} settled/s)  p50 ${m.latencyMs.p50} ms  p99 ${m.latencyMs.p99} ms  failures ${m.failures}/${m.ops}`,
          m.failures ? JSON.stringify(m.failureReasons) : '',
        )
      }
    }
    relayer.close()
    const ratio = (c: number) =>
      round(
        (results[`settle.tollgate.c${c}`]?.successfulOpsPerSecond ?? 0) /
          Math.max(0.01, results[`settle.x402.c${c}`]?.successfulOpsPerSecond ?? 0),
      )
    const body = {
      benchmark: 'evm-settle',
      date: new Date().toISOString(),
      node: process.version,
      setup:
        'anvil devnet (Base Sepolia fixtures, automine) over HTTP; both facilitators in this process; ours: relayer with 4 fee-payer keys, 50 ms receipt polling; official: viem wallet client (1 key), 50 ms polling',
      summary: {
        p50LatencyMsC1: {
          tollgate: results['settle.tollgate.c1']?.latencyMs.p50,
          x402: results['settle.x402.c1']?.latencyMs.p50,
        },
        successfulThroughputRatio: Object.fromEntries(CONCURRENCY.map((c) => [`c${c}`, ratio(c)])),
        failures: Object.fromEntries(Object.entries(results).map(([k, m]) => [k, m.failures])),
      },
      results,
    }
    await writeFile(join(here, 'results', 'evm-settle.json'), `${JSON.stringify(body, null, 2)}\n`)
    console.log(JSON.stringify(body.summary))
  } finally {
    await devnet.stop()
  }
}

async function sign(
  payers: PrivateKeyAccount[],
  requirements: PaymentRequirements,
  count: number,
): Promise<PaymentPayload[]> {
  const payments: PaymentPayload[] = []
  for (let i = 0; i < count; i++) {
    const account = payers[i % payers.length] as PrivateKeyAccount
    const payload = await createEip3009Client({ account }).createPayload(requirements)
    payments.push({ x402Version: 2, accepted: requirements, payload })
  }
  return payments
}

async function measure(
  payments: PaymentPayload[],
  concurrency: number,
  settle: Settle,
): Promise<Measurement> {
  const samples: number[] = []
  const failureReasons: Record<string, number> = {}
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < payments.length) {
        const payment = payments[next++] as PaymentPayload
        const t = performance.now()
        const result = await settle(payment).catch((e: unknown) => ({
          success: false,
          errorReason: e instanceof Error ? e.message.slice(0, 60) : 'error',
        }))
        samples.push(performance.now() - t)
        if (!result.success) {
          const reason = result.errorReason ?? 'unknown'
          failureReasons[reason] = (failureReasons[reason] ?? 0) + 1
        }
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  samples.sort((a, b) => a - b)
  const at = (q: number) => round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0)
  return {
    ops: payments.length,
    failures: Object.values(failureReasons).reduce((a, b) => a + b, 0),
    failureReasons,
    seconds: round(seconds),
    opsPerSecond: round(payments.length / seconds),
    successfulOpsPerSecond: round(
      (payments.length - Object.values(failureReasons).reduce((a, b) => a + b, 0)) / seconds,
    ),
    latencyMs: {
      mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
      p50: at(0.5),
      p99: at(0.99),
      max: round(samples.at(-1) ?? 0),
    },
  }
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

await main()
