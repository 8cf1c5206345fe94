// Verify throughput and latency of the eip3009 scheme next to the official @x402/evm exact
// facilitator, in one process against the same anvil devnet (Base Sepolia fixtures):
//   recover  one EIP-3009 signature check, our path (hand-encoded digest + native secp256k1) vs
//            viem's hashTypedData + recoverTypedDataAddress (pure-JS noble), micro-benchmark;
//   verify   full facilitator verify (with simulation) at concurrency 1, 16 and 64, pre-signed
//            payments from 64 funded payers (verify does not consume nonces, so they are reused).
// Each row is the best of BENCH_ROUNDS rounds (default 3; the machine is shared).
// Writes bench/results/evm-verify.json.
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PaymentPayload, PaymentRequirements } from '@tollgate/core'
import { type Asset, createAssetRegistry } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, startDevnet, toViemChain } from '@tollgate/devnet'
import {
  createEip3009Client,
  createEip3009Facilitator,
  createEip3009Server,
  createRelayer,
  getEip3009Digest,
  recoverSigner,
  transferWithAuthorizationTypes,
} from '@tollgate/evm'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { ExactEvmScheme as OfficialFacilitator } from '@x402/evm/exact/facilitator'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  hashTypedData,
  http,
  publicActions,
  recoverAddress,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const here = dirname(fileURLToPath(import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const OPS: Record<number, number> = { 1: 200, 16: 1500, 64: 3000 }
const CONCURRENCY = [1, 16, 64]
const BASE = 'eip155:84532'
const PAYERS = 64

type Measurement = {
  ops: number
  failures: number
  seconds: number
  opsPerSecond: number
  latencyMs: { mean: number; p50: number; p99: number; max: number }
}

async function main() {
  const results: Record<string, Measurement> = {}
  const record = (key: string, m: Measurement) => {
    results[key] = m
    console.log(
      `${key.padEnd(30)} ${String(m.opsPerSecond).padStart(9)} ops/s  p50 ${m.latencyMs.p50} ms  p99 ${m.latencyMs.p99} ms  failures ${m.failures}/${m.ops}`,
    )
  }
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
    const asset = assets.get(BASE, 'USDC')
    const requirements = createEip3009Server().createRequirements({
      asset,
      amount: 10_000n,
      payTo: '0x00000000000000000000000000000000000000b5',
    })
    const payments = await signPayments(devnet, requirements)
    await benchRecover(payments, requirements, record)

    const chain = toViemChain(net)
    const client = createPublicClient({ chain, transport: http(), pollingInterval: 50 })
    const feePayers = devnet.wallets
      .filter((w) => w.network === BASE && w.role === 'relayer')
      .map((w) => privateKeyToAccount(w.privateKey as Hex))
    const relayer = createRelayer({ network: BASE, client, accounts: feePayers, pollingIntervalMs: 50 })
    const ours = createEip3009Facilitator({ networks: { [BASE]: { client, relayer } }, assets })
    const feePayer = feePayers[0]
    if (!feePayer) {
      throw new Error('no fee payer')
    }
    const wallet = createWalletClient({ account: feePayer, chain, transport: http() }).extend(publicActions)
    const verifyTypedData = (args: object) =>
      wallet.verifyTypedData(args as Parameters<typeof wallet.verifyTypedData>[0])
    const official = new OfficialFacilitator(
      toFacilitatorEvmSigner({ ...wallet, verifyTypedData, address: feePayer.address }),
    )
    const verifiers: Record<string, (p: PaymentPayload) => Promise<boolean>> = {
      tollgate: async (p) => (await ours.verify(p, requirements)).isValid,
      x402: async (p) => (await official.verify(p as never, requirements as never)).isValid,
    }
    for (const concurrency of CONCURRENCY) {
      for (const [name, verify] of Object.entries(verifiers)) {
        const op = (i: number) => verify(payments[i % payments.length] as PaymentPayload)
        await measure(Math.min(100, OPS[concurrency] ?? 100), concurrency, op)
        record(
          `verify.${name}.c${concurrency}`,
          await best(() => measure(OPS[concurrency] ?? 100, concurrency, op)),
        )
      }
    }
    relayer.close()
    const speedup = (c: number) =>
      round(
        (results[`verify.tollgate.c${c}`]?.opsPerSecond ?? 0) /
          (results[`verify.x402.c${c}`]?.opsPerSecond ?? 1),
      )
    const body = {
      benchmark: 'evm-verify',
      date: new Date().toISOString(),
      node: process.version,
      setup:
        'anvil devnet (Base Sepolia fixtures, automine) over HTTP; both facilitators in this process with viem http clients; eip3009 USDC payments from 64 payers, verify with simulation',
      summary: {
        verifySpeedup: Object.fromEntries(CONCURRENCY.map((c) => [`c${c}`, speedup(c)])),
        recoverSpeedup: round(
          (results['recover.viem-noble']?.latencyMs.mean ?? 0) /
            (results['recover.tollgate']?.latencyMs.mean ?? 1),
        ),
      },
      results,
    }
    await writeFile(join(here, 'results', 'evm-verify.json'), `${JSON.stringify(body, null, 2)}\n`)
    console.log(JSON.stringify(body.summary))
  } finally {
    await devnet.stop()
  }
}

async function signPayments(
  devnet: Awaited<ReturnType<typeof startDevnet>>,
  requirements: PaymentRequirements,
): Promise<PaymentPayload[]> {
  const accounts = Array.from({ length: PAYERS }, () => privateKeyToAccount(generatePrivateKey()))
  await Promise.all(
    accounts.map((a) =>
      devnet.fund({ network: BASE, address: a.address, asset: 'USDC', amount: 10n ** 12n }),
    ),
  )
  const payments: PaymentPayload[] = []
  for (let round = 0; round < 4; round++) {
    for (const account of accounts) {
      const payload = await createEip3009Client({ account }).createPayload(requirements)
      payments.push({ x402Version: 2, accepted: requirements, payload })
    }
  }
  return payments
}

// The signature check alone, both ways, on the same payloads.
async function benchRecover(
  payments: PaymentPayload[],
  requirements: PaymentRequirements,
  record: (key: string, m: Measurement) => void,
) {
  const domain = {
    name: String(requirements.extra?.name),
    version: String(requirements.extra?.version),
    chainId: 84532,
    verifyingContract: requirements.asset as Address,
  }
  const parsed = payments.map((p) => {
    const { signature, authorization: a } = p.payload as {
      signature: Hex
      authorization: Record<string, string>
    }
    const message = {
      from: a.from as Address,
      to: a.to as Address,
      value: BigInt(a.value ?? 0),
      validAfter: BigInt(a.validAfter ?? 0),
      validBefore: BigInt(a.validBefore ?? 0),
      nonce: a.nonce as Hex,
    }
    return { signature, message }
  })
  const ops: Record<string, (i: number) => Promise<boolean>> = {
    tollgate: async (i) => {
      const { signature, message } = parsed[i % parsed.length] as (typeof parsed)[number]
      return recoverSigner(getEip3009Digest(domain, message), signature) === message.from.toLowerCase()
    },
    'viem-noble': async (i) => {
      const { signature, message } = parsed[i % parsed.length] as (typeof parsed)[number]
      const hash = hashTypedData({
        domain,
        types: transferWithAuthorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message,
      })
      return (await recoverAddress({ hash, signature })) === message.from
    },
  }
  for (const [name, op] of Object.entries(ops)) {
    await measure(100, 1, op)
    record(`recover.${name}`, await best(() => measure(name === 'tollgate' ? 5000 : 500, 1, op)))
  }
}

async function measure(
  ops: number,
  concurrency: number,
  op: (i: number) => Promise<boolean>,
): Promise<Measurement> {
  const samples: number[] = []
  let failures = 0
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) {
        const i = next++
        const t = performance.now()
        const ok = await op(i).catch(() => false)
        samples.push(performance.now() - t)
        failures += ok ? 0 : 1
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  samples.sort((a, b) => a - b)
  const at = (q: number) => round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0)
  return {
    ops,
    failures,
    seconds: round(seconds),
    opsPerSecond: round(ops / seconds),
    latencyMs: {
      mean: round(samples.reduce((a, b) => a + b, 0) / samples.length, 4),
      p50: at(0.5),
      p99: at(0.99),
      max: round(samples.at(-1) ?? 0),
    },
  }
}

async function best(run: () => Promise<Measurement>): Promise<Measurement> {
  let top: Measurement | undefined
  for (let i = 0; i < ROUNDS; i++) {
    const m = await run()
    if (!top || m.opsPerSecond > top.opsPerSecond) {
      top = m
    }
  }
  return top as Measurement
}

function round(value: number, digits = 2): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

await main()
