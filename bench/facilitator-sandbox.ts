// Verify throughput as users run it: the facilitator `npm start` serves at /facilitator, the
// standalone facilitator (this repo's bench/facilitator-http.ts `--serve ours`: relayer pool, PGlite
// store) and the reference (@x402/core + @x402/evm, `--serve reference`), each in its own process on
// the sandbox's own Base Sepolia anvil. Every round sends 1,000 valid EIP-3009 payloads never sent
// before, over 32 keep-alive connections; rounds alternate between the targets so drift hits them
// alike. Two payer sets: one payer (every payload from the same address) and 32 payers.
// Writes bench/results/facilitator-sandbox.json.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Asset } from '@tollgate/core'
import { createEip3009Server } from '@tollgate/evm'
import { Pool } from 'undici'
import { createWalletClient, erc20Abi, type Hex, http, publicActions } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { signEip3009Bodies } from './lib/sign-eip3009.js'
import { round } from './lib/stats.js'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const NETWORK = 'eip155:84532'
const PAYLOADS = Number(process.env.BENCH_PAYLOADS ?? 1000)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const children: ChildProcess[] = []

type SandboxManifest = {
  facilitatorUrl: string
  networks: Record<string, { rpcUrl: string; assets: Record<string, Omit<Asset, 'network' | 'symbol'>> }>
  wallets: { network: string; address: string; privateKey: string }[]
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-bench-sandbox-'))
  try {
    const manifest = await startSandbox(dir)
    const network = manifest.networks[NETWORK]
    const usdc = network?.assets.USDC
    const payerKey = manifest.wallets.find((w) => w.network === NETWORK)?.privateKey as Hex | undefined
    if (!network || !usdc || !payerKey) {
      throw new Error('the sandbox runs no Base Sepolia USDC')
    }
    const devnetManifest = {
      networks: {
        [NETWORK]: {
          network: NETWORK,
          kind: 'evm',
          chainId: 84532,
          rpcUrl: network.rpcUrl,
          assets: { USDC: { ...usdc, symbol: 'USDC' } },
        },
      },
      // Verify sends no transaction; the serving targets only need a key to build their signer.
      wallets: [{ network: NETWORK, role: 'relayer', privateKey: generatePrivateKey(), address: '' }],
    }
    const targets: Record<string, string> = {
      sandbox: manifest.facilitatorUrl,
      standalone: await serveBenchTarget('ours', devnetManifest),
      reference: await serveBenchTarget('reference', devnetManifest),
    }
    const asset: Asset = { ...usdc, network: NETWORK, symbol: 'USDC' }
    const requirements = createEip3009Server().createRequirements({
      asset,
      amount: 10_000n,
      payTo: privateKeyToAccount(generatePrivateKey()).address,
    })
    const onePayer = [privateKeyToAccount(payerKey)]
    const manyPayers = await fundPayers(network.rpcUrl, usdc.address as Hex, payerKey, 32)
    const results: Record<string, Record<string, number[]>> = {}
    for (const [setName, payers] of [
      ['one-payer', onePayer],
      ['32-payers', manyPayers],
    ] as const) {
      results[setName] = {}
      for (let r = 0; r < ROUNDS; r++) {
        for (const [name, url] of Object.entries(targets)) {
          const bodies = await signEip3009Bodies(payers, requirements, PAYLOADS)
          const perSecond = await blast(`${url}/verify`, bodies)
          const runs = results[setName] as Record<string, number[]>
          runs[name] = [...(runs[name] ?? []), perSecond]
          console.log(`${setName} round ${r + 1} ${name}`.padEnd(32), `${perSecond} verifies/s`)
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
    const summary = Object.fromEntries(
      Object.entries(results).map(([set, runs]) => {
        const reference = median(runs.reference ?? [])
        return [
          set,
          Object.fromEntries(
            Object.entries(runs).map(([name, xs]) => [
              name,
              {
                medianPerSecond: round(median(xs)),
                ratioToReference: round(median(xs) / Math.max(1, reference)),
              },
            ]),
          ),
        ]
      }),
    )
    const body = {
      benchmark: 'facilitator-sandbox',
      date: new Date().toISOString(),
      node: process.version,
      loadavg: loadavg().map(round),
      setup: `${PAYLOADS} never-seen eip3009 payloads per round, ${CONNECTIONS} keep-alive connections, ${ROUNDS} alternating rounds; sandbox = npm start's /facilitator; standalone and reference in their own processes on the sandbox's anvil`,
      summary,
      results,
    }
    await writeFile(join(here, 'results', 'facilitator-sandbox.json'), `${JSON.stringify(body, null, 2)}\n`)
    console.log(JSON.stringify(summary))
  } finally {
    for (const child of children) {
      child.kill('SIGTERM')
    }
    await Promise.all(
      children.map(
        (c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once('exit', resolve))),
      ),
    )
    await rm(dir, { recursive: true, force: true })
  }
}

// `npm start` as a user runs it (default log level), on a free port and a private data folder.
async function startSandbox(dir: string): Promise<SandboxManifest> {
  const manifestPath = join(dir, 'sandbox.json')
  const child = spawn(
    process.execPath,
    ['--conditions=tollgate-source', '--import', 'tsx', 'packages/service/src/main.ts', '--port', '0'],
    {
      cwd: root,
      env: { ...process.env, TOLLGATE_DATA_DIR: join(dir, 'data'), TOLLGATE_MANIFEST: manifestPath },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  children.push(child)
  await waitForLine(child, /Tollgate sandbox ready/)
  return JSON.parse(await readFile(manifestPath, 'utf8')) as SandboxManifest
}

async function serveBenchTarget(target: 'ours' | 'reference', manifest: unknown): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--conditions=tollgate-source', '--import', 'tsx', join(here, 'facilitator-http.ts'), '--serve', target],
    {
      cwd: root,
      env: { ...process.env, BENCH_MANIFEST: JSON.stringify(manifest) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  children.push(child)
  const line = await waitForLine(child, /LISTENING (\S+)/)
  return (/LISTENING (\S+)/.exec(line) as RegExpExecArray)[1] as string
}

function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before printing ${pattern}`)))
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (pattern.test(line)) {
        resolve(line)
      }
    })
  })
}

// Fresh payers, each sent 1 USDC by the sandbox's funded payer (verify checks the balance).
async function fundPayers(
  rpcUrl: string,
  usdc: Hex,
  funderKey: Hex,
  count: number,
): Promise<PrivateKeyAccount[]> {
  const wallet = createWalletClient({
    account: privateKeyToAccount(funderKey),
    transport: http(rpcUrl),
  }).extend(publicActions)
  const payers = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()))
  for (const payer of payers) {
    const hash = await wallet.writeContract({
      address: usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [payer.address, 1_000_000n],
      chain: null,
    })
    await wallet.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  }
  return payers
}

// Closed loop over CONNECTIONS keep-alive connections; every answer must be a valid verification.
async function blast(url: string, bodies: string[]): Promise<number> {
  const { origin, pathname } = new URL(url)
  const pool = new Pool(origin, { connections: CONNECTIONS, pipelining: 1 })
  let next = 0
  let invalid = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++] as string
        const res = await pool.request({
          origin,
          path: pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        const text = await res.body.text()
        if (res.statusCode !== 200 || !text.includes('"isValid":true')) {
          invalid += 1
        }
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  if (invalid > 0) {
    throw new Error(`${invalid} of ${bodies.length} verifies at ${url} were not valid`)
  }
  return round(bodies.length / seconds)
}

await main()
