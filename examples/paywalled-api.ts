// A paid API: hono + @tollgate/middleware, paid through Tollgate's facilitator on the local devnet.
//
//   node --conditions=tollgate-source --import tsx examples/paywalled-api.ts                          # facilitator in-process
//   FACILITATOR=standalone node --conditions=tollgate-source --import tsx examples/paywalled-api.ts   # tollgate-facilitator with
//                                                                        # examples/facilitator.config.json
//   then, in another terminal:  node --conditions=tollgate-source --import tsx examples/paying-agent.ts
//   or with curl:               curl -i http://127.0.0.1:4021/weather
//
// It starts the devnet (Base Sepolia, BSC testnet and Solana devnet chains, funded wallets), serves
// GET /weather ($0.01: eip3009 on Base Sepolia or solana) and GET /report ($0.05: permit2 in BSC
// testnet USDT, 18 decimals) on PORT (default 4021), and writes what the agent needs (URL, RPCs,
// funded payer keys) to .tollgate/paywalled-api.json (EXAMPLE_MANIFEST to change it). Ctrl-C stops all.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { createAssetRegistry, type FacilitatorClient, SOLANA_DEVNET } from '@tollgate/core'
import { DEFAULT_EVM_NETWORKS, type LocalDevnet, startDevnet } from '@tollgate/devnet'
import { createEip3009Server, createPermit2Server } from '@tollgate/evm'
import { createDevnetFacilitator, getDevnetAssets } from '@tollgate/facilitator/devnet'
import { createHttpFacilitatorClient, type PaymentVariables, paymentRequired } from '@tollgate/middleware'
import { createSolanaServer } from '@tollgate/svm'
import { Hono } from 'hono'

const here = dirname(fileURLToPath(import.meta.url))
const MERCHANT_EVM = '0x000000000000000000000000000000000000bEEF'

const devnet = await startDevnet({
  evm: { networks: DEFAULT_EVM_NETWORKS.filter((n) => ['eip155:84532', 'eip155:97'].includes(n.network)) },
})
const stops: (() => Promise<void> | void)[] = [() => devnet.stop()]
const facilitator =
  process.env.FACILITATOR === 'standalone'
    ? await startStandaloneFacilitator(devnet)
    : await startInProcess(devnet)

// Any Solana address with token accounts works as the Solana payee; the devnet's second payer has them.
const merchantSolana = devnet.wallets.filter((w) => w.network === SOLANA_DEVNET && w.role === 'payer')[1]
  ?.address

const app = new Hono<{ Variables: PaymentVariables }>()
app.use(
  paymentRequired({
    facilitator,
    schemes: [createEip3009Server(), createPermit2Server(), createSolanaServer()],
    assets: createAssetRegistry(getDevnetAssets(devnet)),
    payTo: { evm: MERCHANT_EVM, ...(merchantSolana ? { svm: merchantSolana } : {}) },
    paywall: { appName: 'Weather API' },
    routes: {
      'GET /weather': {
        price: '$0.01',
        description: 'Current weather',
        mimeType: 'application/json',
        accepts: [
          { scheme: 'eip3009', network: 'eip155:84532' },
          { scheme: 'solana', network: SOLANA_DEVNET },
        ],
      },
      'GET /report': {
        price: '$0.05',
        description: 'Ten-day report',
        accepts: { scheme: 'permit2', network: 'eip155:97', asset: 'USDT' },
      },
    },
    onError: (error) => console.error('payment middleware:', error),
  }),
)
app.get('/', (c) => c.text('GET /weather ($0.01) and GET /report ($0.05) are paid with x402.\n'))
app.get('/weather', (c) =>
  c.json({ city: 'Lagos', celsius: 31, sky: 'sunny', paidBy: c.get('payment').payer }),
)
app.get('/report', (c) =>
  c.json({
    days: Array.from({ length: 10 }, (_, day) => ({ day, celsius: 30 + (day % 3) })),
    paidBy: c.get('payment').payer,
  }),
)

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.env.PORT ?? 4021) })
await new Promise((resolve) => server.once('listening', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
stops.unshift(() => new Promise<void>((resolve) => server.close(() => resolve())))

const manifestPath = process.env.EXAMPLE_MANIFEST ?? join(here, '..', '.tollgate', 'paywalled-api.json')
await mkdir(dirname(manifestPath), { recursive: true })
await writeFile(
  manifestPath,
  `${JSON.stringify(
    {
      url,
      rpcs: Object.fromEntries(Object.values(devnet.networks).map((n) => [n.network, n.rpcUrl])),
      assets: getDevnetAssets(devnet),
      payers: devnet.wallets.filter((w) => w.role === 'payer'),
    },
    null,
    2,
  )}\n`,
)
console.log(`paywalled API listening on ${url} (manifest: ${manifestPath})`)

let stopping = false
const shutdown = async () => {
  if (stopping) {
    return
  }
  stopping = true
  for (const stop of stops) {
    await stop()
  }
  process.exit(0)
}
process.once('SIGINT', shutdown)
process.once('SIGTERM', shutdown)

async function startInProcess(running: LocalDevnet): Promise<FacilitatorClient> {
  const { facilitator: inProcess, close } = await createDevnetFacilitator(running)
  stops.push(close)
  return inProcess
}

// Runs `tollgate-facilitator --config examples/facilitator.config.json` with the devnet's RPC URLs
// and relayer keys in its environment, and talks to it over HTTP like any remote facilitator.
async function startStandaloneFacilitator(running: LocalDevnet): Promise<FacilitatorClient> {
  const relayer = (network: string) =>
    running.wallets.find((w) => w.network === network && w.role === 'relayer')?.privateKey ?? ''
  const env = {
    ...process.env,
    DEVNET_BASE_SEPOLIA_RPC: running.networks['eip155:84532']?.rpcUrl,
    DEVNET_BSC_TESTNET_RPC: running.networks['eip155:97']?.rpcUrl,
    DEVNET_SOLANA_RPC: running.networks[SOLANA_DEVNET]?.rpcUrl,
    DEVNET_EVM_RELAYER_KEY: relayer('eip155:84532'),
    DEVNET_SOLANA_FEE_PAYER_KEY: relayer(SOLANA_DEVNET),
  }
  const bin = join(here, '..', 'packages', 'facilitator', 'bin', 'tollgate-facilitator.js')
  const child: ChildProcess = spawn(
    process.execPath,
    // This process's flags (`--conditions=tollgate-source --import tsx` in the repository) run the bin
    // on the sources; without them it runs the built dist/.
    [...process.execArgv, bin, '--config', join(here, 'facilitator.config.json'), '--port', '0'],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  stops.push(() => {
    child.kill('SIGTERM')
  })
  const facilitatorUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`tollgate-facilitator exited with ${code}`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string }
        if (entry.msg === 'facilitator listening' && entry.url) {
          resolve(entry.url)
        }
      } catch {
        // not a log line
      }
    })
  })
  console.log(`standalone facilitator at ${facilitatorUrl}`)
  return createHttpFacilitatorClient({ url: facilitatorUrl, timeoutMs: 30_000 })
}
