// Per-request overhead of our payment middleware next to the official @x402/hono middleware, in
// the same run, on the same fake facilitator that answers at once (so no chain time is measured).
// Each app is called in-process through hono's app.fetch, one request at a time:
//   baseline  the handler alone (no middleware)
//   paid      a request carrying a valid-looking payment: decode, match, verify, handler, settle,
//             receipt header
//   unpaid    a request without payment: the 402 with its requirements
// Overhead = latency − baseline latency, per percentile. Rounds alternate the apps so drift on the
// shared machine hits both alike. Writes bench/results/middleware-overhead.json.
import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeBase64Json, type FacilitatorClient } from '@tollgate/core'
import { createEip3009Server } from '@tollgate/evm'
import { paymentRequired } from '@tollgate/middleware'
import type { FacilitatorClient as X402FacilitatorClient } from '@x402/core/server'
import type { PaymentRequired } from '@x402/core/types'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { paymentMiddleware, x402ResourceServer } from '@x402/hono'
import { Hono } from 'hono'

const here = dirname(fileURLToPath(import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const WARMUP = 500
const PAY_TO = '0x2222222222222222222222222222222222222222'
const PAYER = '0x1111111111111111111111111111111111111111'
const URL_PAID = 'http://shop.test/weather'

const verifyAnswer = { isValid: true, payer: PAYER }
const settleAnswer = {
  success: true,
  transaction: `0x${'ab'.repeat(32)}`,
  network: 'eip155:84532',
  payer: PAYER,
}
const supported = {
  kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
  extensions: [],
  signers: {},
}

// One fake facilitator, typed for each side (the answers are identical objects).
const ourFacilitator: FacilitatorClient = {
  verify: async () => verifyAnswer,
  settle: async () => settleAnswer,
  getSupported: async () => supported,
}
const officialFacilitator: X402FacilitatorClient = {
  verify: async () => verifyAnswer,
  settle: async () => ({ ...settleAnswer, network: 'eip155:84532' as const }),
  getSupported: async () => ({
    kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' as const }],
    extensions: [],
    signers: {},
  }),
}

const handler = (c: { json: (body: unknown) => Response }) => c.json({ report: 'sunny', temperature: 21 })

function createBaseline(): Hono {
  const app = new Hono()
  app.get('/weather', handler)
  return app
}

function createOurs(): Hono {
  const app = new Hono()
  app.use(
    paymentRequired({
      facilitator: ourFacilitator,
      schemes: [createEip3009Server()],
      payTo: PAY_TO,
      routes: { 'GET /weather': { price: '$0.01', accepts: { scheme: 'eip3009', network: 'eip155:84532' } } },
    }),
  )
  app.get('/weather', handler)
  return app
}

function createOfficial(): Hono {
  const server = new x402ResourceServer(officialFacilitator).register('eip155:84532', new ExactEvmServer())
  const app = new Hono()
  app.use(
    paymentMiddleware(
      {
        'GET /weather': {
          accepts: { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo: PAY_TO },
        },
      },
      server,
    ),
  )
  app.get('/weather', handler)
  return app
}

// A payment header echoing the app's first requirement (the fake facilitator accepts any signature).
async function createPaymentHeaderFor(app: Hono): Promise<string> {
  const response = await app.fetch(new Request(URL_PAID))
  const header = response.headers.get('PAYMENT-REQUIRED')
  if (response.status !== 402 || !header) {
    throw new Error(`expected a 402 with PAYMENT-REQUIRED, got ${response.status}`)
  }
  const offer = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentRequired
  const accepted = offer.accepts[0]
  return encodeBase64Json({
    x402Version: 2,
    resource: offer.resource,
    accepted,
    payload: {
      signature: `0x${'12'.repeat(65)}`,
      authorization: {
        from: PAYER,
        to: accepted?.payTo,
        value: accepted?.amount,
        validAfter: '0',
        validBefore: String(Math.floor(Date.now() / 1000) + 3600),
        nonce: `0x${'34'.repeat(32)}`,
      },
    },
  })
}

type Case = { name: string; app: Hono; headers: Record<string, string>; expect: number }

async function measure(item: Case, count: number): Promise<number[]> {
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const request = new Request(URL_PAID, { headers: item.headers })
    const start = process.hrtime.bigint()
    const response = await item.app.fetch(request)
    await response.arrayBuffer()
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
    if (response.status !== item.expect) {
      throw new Error(`${item.name}: expected ${item.expect}, got ${response.status}`)
    }
  }
  return samples
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length
  const round = (x: number) => Math.round(x * 1000) / 1000
  return {
    requests: samples.length,
    latencyMs: {
      mean: round(mean),
      p50: round(percentile(sorted, 50)),
      p90: round(percentile(sorted, 90)),
      p99: round(percentile(sorted, 99)),
    },
  }
}

async function main() {
  const ours = createOurs()
  const official = createOfficial()
  const cases: Case[] = [
    { name: 'baseline', app: createBaseline(), headers: {}, expect: 200 },
    {
      name: 'tollgate.paid',
      app: ours,
      headers: { 'PAYMENT-SIGNATURE': await createPaymentHeaderFor(ours) },
      expect: 200,
    },
    {
      name: 'x402.paid',
      app: official,
      headers: { 'PAYMENT-SIGNATURE': await createPaymentHeaderFor(official) },
      expect: 200,
    },
    { name: 'tollgate.unpaid', app: ours, headers: {}, expect: 402 },
    { name: 'x402.unpaid', app: official, headers: {}, expect: 402 },
  ]
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]))
  for (const item of cases) {
    await measure(item, WARMUP)
  }
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order each round so neither side always runs right after the other.
    const order = round % 2 === 0 ? cases : [...cases].reverse()
    for (const item of order) {
      samples.get(item.name)?.push(...(await measure(item, REQUESTS)))
    }
  }
  const summary = Object.fromEntries(cases.map((c) => [c.name, summarize(samples.get(c.name) ?? [])]))
  const baseline = summary.baseline?.latencyMs
  const overhead = Object.fromEntries(
    cases
      .filter((c) => c.name !== 'baseline')
      .map((c) => {
        const latency = summary[c.name]?.latencyMs
        const minus = (key: 'p50' | 'p99' | 'mean') =>
          Math.round(((latency?.[key] ?? 0) - (baseline?.[key] ?? 0)) * 1000) / 1000
        return [c.name, { p50: minus('p50'), p99: minus('p99'), mean: minus('mean') }]
      }),
  )
  const result = {
    benchmark: 'middleware-overhead',
    date: new Date().toISOString(),
    node: process.version,
    rounds: ROUNDS,
    requestsPerRound: REQUESTS,
    note: 'in-process hono app.fetch, sequential; fake facilitator answering at once; overhead = latency − baseline',
    latency: summary,
    overheadMs: overhead,
  }
  console.table(
    Object.fromEntries(
      Object.entries(summary).map(([name, s]) => [
        name,
        {
          ...s.latencyMs,
          'overhead p50': overhead[name]?.p50 ?? 0,
          'overhead p99': overhead[name]?.p99 ?? 0,
        },
      ]),
    ),
  )
  await writeFile(join(here, 'results', 'middleware-overhead.json'), `${JSON.stringify(result, null, 2)}\n`)
}

await main()
