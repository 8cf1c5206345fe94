// Verify throughput as users run it: the facilitator `npm start` serves at /facilitator, the
// standalone facilitator as `tollgate facilitator --config <file>` runs it (the CLI, a config file
// naming the sandbox's anvil, PGlite store, default log level) and the reference (@x402/core +
// @x402/evm, bench/facilitator-http.ts `--serve reference`), each in its own process on
// the sandbox's own Base Sepolia anvil. Every round sends 1,000 valid EIP-3009 payloads never sent
// before, over 32 keep-alive connections; rounds alternate between the targets so drift hits them
// alike. Two payer sets: one payer (every payload from the same address) and 32 payers.
// Writes bench/results/facilitator-sandbox.json.
import { type ChildProcess, spawn } from 'node:child_process'
import { appendFileSync, readFileSync } from 'node:fs'
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
// Unmeasured rounds per target before any measured one (JIT warm-up, connection pools, caches of
// code per payer): ours spends up to twice the CPU per verify over a fresh process's first few
// thousand verifies, so a set measured first looked dearer than one measured second.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
// Seconds the sandbox is watched idle before the rounds (its background CPU).
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10)
// Payer sets, measured in this order.
const SETS = (process.env.BENCH_SETS ?? 'one-payer,32-payers').split(',')
// e.g. BENCH_NODE_ARGS=--cpu-prof to profile the serving processes.
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
// The V8 flags a user's server process gets (`npm start`'s script; the `tollgate` bin passes the same
// to start, serve, facilitator and worker): ours runs with them unless BENCH_USER_V8_FLAGS=0.
const USER_V8_FLAGS =
  process.env.BENCH_USER_V8_FLAGS === '0'
    ? []
    : (
        JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
      ).scripts.start
        .split(' ')
        .filter((arg) => /^--((max|min)-semi-space-size=|no-allocation-site-pretenuring$)/.test(arg))
// Node options for ours only (the sandbox and the standalone), e.g. to A/B a V8 flag; the reference
// keeps NODE_ARGS alone.
const OURS_NODE_ARGS = [
  ...NODE_ARGS,
  ...USER_V8_FLAGS,
  ...(process.env.BENCH_OURS_NODE_ARGS ?? '').split(' ').filter(Boolean),
]
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
      standalone: await startStandalone(dir, network.rpcUrl, { ...usdc, symbol: 'USDC' }),
      reference: await serveBenchTarget('reference', devnetManifest),
    }
    // Whose CPU a round spends (load-insensitive): the serving process, the sandbox's Base Sepolia
    // anvil, and this client (undici); microseconds per verify, read from /proc around each round.
    const pids: Record<string, number> = {
      sandbox: children[0]?.pid ?? -1,
      standalone: children[1]?.pid ?? -1,
      reference: children[2]?.pid ?? -1,
    }
    const anvilPid = await findAnvil(pids.sandbox as number)
    const cpu: Record<string, Record<string, { target: number[]; anvil: number[]; client: number[] }>> = {}
    // What the sandbox spends with no request at all (its watchers and job runner), per second.
    const idleFrom = await cpuMicros(pids.sandbox as number)
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000))
    const sandboxIdleMicrosPerSecond = round(
      ((await cpuMicros(pids.sandbox as number)) - idleFrom) / IDLE_SECONDS,
    )
    console.log(`sandbox idle: ${sandboxIdleMicrosPerSecond} us of CPU per second`)
    const asset: Asset = { ...usdc, network: NETWORK, symbol: 'USDC' }
    const requirements = createEip3009Server().createRequirements({
      asset,
      amount: 10_000n,
      payTo: privateKeyToAccount(generatePrivateKey()).address,
    })
    const onePayer = [privateKeyToAccount(payerKey)]
    const manyPayers = await fundPayers(network.rpcUrl, usdc.address as Hex, payerKey, 32)
    const results: Record<string, Record<string, number[]>> = {}
    const payerSets: Record<string, PrivateKeyAccount[]> = { 'one-payer': onePayer, '32-payers': manyPayers }
    for (let r = 0; r < WARMUP; r++) {
      for (const url of Object.values(targets)) {
        await blast(`${url}/verify`, await signEip3009Bodies(manyPayers, requirements, PAYLOADS))
      }
    }
    // In the order BENCH_SETS names them.
    for (const setName of SETS) {
      const payers = payerSets[setName]
      if (!payers) {
        throw new Error(`unknown payer set ${setName}`)
      }
      results[setName] = {}
      for (let r = 0; r < ROUNDS; r++) {
        for (const [name, url] of Object.entries(targets)) {
          const bodies = await signEip3009Bodies(payers, requirements, PAYLOADS)
          const threadsBefore = await threadMicros(pids[name] as number)
          const before = {
            target: await cpuMicros(pids[name] as number),
            anvil: await cpuMicros(anvilPid),
            client: clientMicros(),
          }
          const startedAt = Date.now()
          const perSecond = await blast(`${url}/verify`, bodies)
          if (process.env.BENCH_CHILD_STDOUT) {
            appendFileSync(
              process.env.BENCH_CHILD_STDOUT,
              `${startedAt} ${Date.now()} ROUND ${setName} ${r + 1} ${name} ${pids[name]}\n`,
            )
          }
          const after = {
            target: await cpuMicros(pids[name] as number),
            anvil: await cpuMicros(anvilPid),
            client: clientMicros(),
          }
          const threadsAfter = await threadMicros(pids[name] as number)
          const perVerify = (k: 'target' | 'anvil' | 'client') =>
            round((after[k] - before[k]) / bodies.length)
          const runs = results[setName] as Record<string, number[]>
          runs[name] = [...(runs[name] ?? []), perSecond]
          cpu[setName] ??= {}
          const setCpu = cpu[setName] as (typeof cpu)[string]
          setCpu[name] ??= { target: [], anvil: [], client: [] }
          const mine = setCpu[name] as (typeof setCpu)[string]
          mine.target.push(perVerify('target'))
          mine.anvil.push(perVerify('anvil'))
          mine.client.push(perVerify('client'))
          console.log(
            `${setName} round ${r + 1} ${name}`.padEnd(32),
            `${perSecond} verifies/s`.padEnd(18),
            `cpu us/verify: target ${perVerify('target')}, anvil ${perVerify('anvil')}, client ${perVerify('client')}`,
            `(load ${loadavg()[0]?.toFixed(1)})`,
          )
          if (process.env.BENCH_THREADS === '1') {
            const byThread: Record<string, number> = {}
            for (const [thread, micros] of threadsAfter) {
              const d = micros - (threadsBefore.get(thread) ?? 0)
              const kind = thread.startsWith(`${pids[name]} `) ? 'main' : thread.replace(/^\d+ /, '')
              byThread[kind] = (byThread[kind] ?? 0) + d
            }
            console.log(
              '   threads us/verify:',
              Object.entries(byThread)
                .filter(([, d]) => d > 0)
                .sort((a, b) => b[1] - a[1])
                .map(([k, d]) => `${k} ${round(d / bodies.length)}`)
                .join(', '),
            )
          }
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
                // Load-insensitive: the reference's CPU per verify over this target's (medians).
                cpuRatioToReference: round(
                  median(cpu[set]?.reference?.target ?? []) /
                    Math.max(1, median(cpu[set]?.[name]?.target ?? [])),
                ),
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
      setup: `${PAYLOADS} never-seen eip3009 payloads per round, ${CONNECTIONS} keep-alive connections, ${WARMUP} unmeasured rounds per target first, then ${ROUNDS} measured alternating rounds per payer set; cpuMicrosPerVerify = CPU time per verify of the serving process, the sandbox's anvil and this client; sandbox = npm start's /facilitator; standalone and reference in their own processes on the sandbox's anvil; node flags of ours: ${OURS_NODE_ARGS.join(' ') || 'none'}`,
      summary,
      results,
      cpuMicrosPerVerify: cpu,
      sandboxIdleMicrosPerSecond,
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
    [
      ...OURS_NODE_ARGS,
      '--conditions=tollgate-source',
      '--import',
      'tsx',
      'packages/service/src/main.ts',
      '--port',
      '0',
    ],
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

// `tollgate facilitator --config <file>` as a user runs it (packages/cli's main, as `npm run tollgate`
// and the `tollgate` bin start it): Base Sepolia with eip3009 on the sandbox's anvil, one relayer key
// (verify sends no transaction), PGlite in a private data folder, the default log level.
async function startStandalone(dir: string, rpcUrl: string, usdc: Omit<Asset, 'network'>): Promise<string> {
  const configPath = join(dir, 'facilitator.json')
  const config = {
    port: 0,
    host: '127.0.0.1',
    dataDir: join(dir, 'facilitator-data'),
    networks: {
      [NETWORK]: {
        rpcUrl,
        schemes: ['eip3009'],
        signers: [{ privateKeyEnv: 'BENCH_RELAYER_KEY' }],
        assets: [usdc],
        pollingIntervalMs: 50,
      },
    },
  }
  await writeFile(configPath, JSON.stringify(config))
  const child = spawn(
    process.execPath,
    [
      ...OURS_NODE_ARGS,
      '--conditions=tollgate-source',
      '--import',
      'tsx',
      'packages/cli/src/main.ts',
      'facilitator',
      '--config',
      configPath,
    ],
    {
      cwd: root,
      env: { ...process.env, BENCH_RELAYER_KEY: generatePrivateKey() },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  children.push(child)
  const line = await waitForLine(child, /"msg":"facilitator listening"/)
  return (JSON.parse(line) as { url: string }).url
}

async function serveBenchTarget(target: 'reference', manifest: unknown): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      ...NODE_ARGS,
      '--conditions=tollgate-source',
      '--import',
      'tsx',
      join(here, 'facilitator-http.ts'),
      '--serve',
      target,
    ],
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
      // BENCH_CHILD_STDOUT=<file>: keep the serving processes' stdout (e.g. --trace-gc), stamped.
      if (process.env.BENCH_CHILD_STDOUT) {
        appendFileSync(process.env.BENCH_CHILD_STDOUT, `${Date.now()} ${child.pid} ${line}\n`)
      }
      if (pattern.test(line)) {
        resolve(line)
      }
    })
  })
}

// CPU time (user + system) of a process in microseconds, from /proc (Linux); 0 elsewhere.
async function cpuMicros(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after "pid (comm) ".
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
  } catch {
    return 0
  }
}

// CPU time per thread of a process ("tid comm" -> microseconds), from /proc/<pid>/task (Linux).
async function threadMicros(pid: number): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  const { readdir } = await import('node:fs/promises')
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    try {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(`${tid} ${comm}`, ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100)
    } catch {}
  }
  return out
}

function clientMicros(): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

// The sandbox's Base Sepolia anvil: a descendant of the sandbox process run with --chain-id 84532.
async function findAnvil(root: number): Promise<number> {
  const { readdir } = await import('node:fs/promises')
  const parents = new Map<number, number>()
  const anvils: number[] = []
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) {
      continue
    }
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')
      if (cmdline[0]?.endsWith('/anvil') && cmdline.includes('84532')) {
        anvils.push(pid)
      }
    } catch {}
  }
  const descends = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 8; depth++) {
      p = parents.get(p) ?? 0
      if (p === root) {
        return true
      }
    }
    return false
  }
  return anvils.find(descends) ?? -1
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
