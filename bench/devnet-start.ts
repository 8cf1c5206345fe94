// Devnet start time, written to bench/results/devnet-start.json:
//   fresh  `startDevnet()` as `npm run devnet` runs it (six anvils with fixtures, LiteSVM), no flags;
//   chains three anvils (Base, Arbitrum, BSC) against six (plus Ethereum, Polygon, Celo), both with
//          LiteSVM, in alternating rounds so both see the same load; per round the start time and the
//          resident memory (VmRSS) of the anvil processes, read from /proc right after the start;
//   sandbox `startSandbox` (the service, facilitator and mounts of `npm start`, PGlite) on three and
//          on six anvils, alternating, each set restarting on its own data directory (the warm-up
//          round is the first start); the time until `startSandbox` resolves;
//   fork   `startEvmDevnet` with one network forked (`--fork eip155:84532=<url>`) and one `--fund`
//          address, the upstream being a devnet Base Sepolia chain on this machine (so the number is
//          the fork's own setup: placers, token reads, balance-slot probing, approvals; a remote RPC
//          adds its round trips on top).
// Each part runs BENCH_ROUNDS starts (default 5) after one warm-up and reports min/median/max in ms
// with the 1-minute load average before each round. BENCH_PARTS (comma list, default "fresh,chains,sandbox,fork").
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_EVM_NETWORKS, startDevnet, startEvmDevnet } from '@tollgate/devnet'
import { createLogger } from '../packages/service/src/http/create-logger.js'
import {
  createSandboxFacilitator,
  createX402Mounts,
} from '../packages/service/src/sandbox/create-x402-mounts.js'
import { startSandbox } from '../packages/service/src/sandbox/start-sandbox.js'
import { round } from './lib/stats.js'

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const parts = (process.env.BENCH_PARTS ?? 'fresh,chains,sandbox,fork').split(',')

async function measure(start: () => Promise<{ stop(): Promise<void> }>) {
  const samples: number[] = []
  const load: number[] = []
  for (let i = 0; i <= rounds; i++) {
    load.push(round(loadavg()[0] ?? 0))
    const t = performance.now()
    const devnet = await start()
    const ms = performance.now() - t
    await devnet.stop()
    if (i > 0) {
      samples.push(ms)
    }
  }
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    rounds,
    minMs: round(sorted[0] ?? 0),
    medianMs: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    maxMs: round(sorted.at(-1) ?? 0),
    loadavg1m: load.slice(1),
  }
}

/** Resident set size in MB of a process (Linux /proc; 0 where it cannot be read). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]
  return kb === undefined ? 0 : Number(kb) / 1024
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    minMs: round(sorted[0] ?? 0),
    medianMs: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    maxMs: round(sorted.at(-1) ?? 0),
  }
}

// Alternating rounds of three and six anvils (one warm-up of each first).
async function measureChains() {
  const sets = {
    three: DEFAULT_EVM_NETWORKS.slice(0, 3),
    six: DEFAULT_EVM_NETWORKS.slice(0, 6),
  }
  const runs = {
    three: { ms: [] as number[], anvilRssMb: [] as number[] },
    six: { ms: [] as number[], anvilRssMb: [] as number[] },
  }
  const load: number[] = []
  for (let i = 0; i <= rounds; i++) {
    load.push(round(loadavg()[0] ?? 0))
    for (const name of i % 2 === 0 ? (['three', 'six'] as const) : (['six', 'three'] as const)) {
      const t = performance.now()
      const devnet = await startDevnet({ evm: { networks: sets[name] } })
      const ms = performance.now() - t
      const pids = Object.values(devnet.evm?.pids ?? {})
      const rss = (await Promise.all(pids.map(rssMb))).reduce((a, b) => a + b, 0)
      await devnet.stop()
      if (i > 0) {
        runs[name].ms.push(ms)
        runs[name].anvilRssMb.push(rss)
      }
    }
  }
  const median = (values: number[]) =>
    round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0)
  return {
    rounds,
    three: {
      anvils: sets.three.length,
      ...summary(runs.three.ms),
      anvilRssMedianMb: median(runs.three.anvilRssMb),
    },
    six: { anvils: sets.six.length, ...summary(runs.six.ms), anvilRssMedianMb: median(runs.six.anvilRssMb) },
    loadavg1m: load.slice(1),
  }
}

// Alternating sandbox restarts on three and six anvils (one first start of each as warm-up).
async function measureSandbox() {
  const sets = { three: DEFAULT_EVM_NETWORKS.slice(0, 3), six: DEFAULT_EVM_NETWORKS.slice(0, 6) }
  const dirs = {
    three: await mkdtemp(join(tmpdir(), 'tollgate-bench-sandbox3-')),
    six: await mkdtemp(join(tmpdir(), 'tollgate-bench-sandbox6-')),
  }
  const ms = { three: [] as number[], six: [] as number[] }
  const load: number[] = []
  try {
    for (let i = 0; i <= rounds; i++) {
      load.push(round(loadavg()[0] ?? 0))
      for (const name of i % 2 === 0 ? (['three', 'six'] as const) : (['six', 'three'] as const)) {
        const t = performance.now()
        const sandbox = await startSandbox({
          port: 0,
          dataDir: join(dirs[name], 'data'),
          logger: createLogger({ level: 'silent' }),
          startDevnet: () => startDevnet({ evm: { networks: sets[name] } }),
          createFacilitator: createSandboxFacilitator,
          mounts: createX402Mounts,
        })
        const elapsed = performance.now() - t
        await sandbox.stop()
        if (i > 0) {
          ms[name].push(elapsed)
        }
      }
    }
  } finally {
    await Promise.all(Object.values(dirs).map((dir) => rm(dir, { recursive: true, force: true })))
  }
  return {
    rounds,
    three: { anvils: 3, ...summary(ms.three) },
    six: { anvils: 6, ...summary(ms.six) },
    loadavg1m: load.slice(1),
  }
}

const results: Record<string, unknown> = {}
if (parts.includes('fresh')) {
  results.fresh = await measure(() => startDevnet())
  console.log('fresh', results.fresh)
}
if (parts.includes('chains')) {
  results.chains = await measureChains()
  console.log('chains', JSON.stringify(results.chains))
}
if (parts.includes('sandbox')) {
  results.sandbox = await measureSandbox()
  console.log('sandbox', JSON.stringify(results.sandbox))
}
if (parts.includes('fork')) {
  const base = DEFAULT_EVM_NETWORKS.filter((n) => n.network === 'eip155:84532')
  const upstream = await startEvmDevnet({ networks: base })
  const rpcUrl = upstream.networks['eip155:84532']?.rpcUrl as string
  try {
    results.fork = await measure(() =>
      startEvmDevnet({
        networks: [],
        forks: [{ network: 'eip155:84532', rpcUrl }],
        fund: ['0x00000000000000000000000000000000f0dd0001'],
      }),
    )
    console.log('fork', results.fork)
  } finally {
    await upstream.stop()
  }
}
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'devnet-start.json')
await writeFile(out, `${JSON.stringify({ date: new Date().toISOString(), ...results }, null, 2)}\n`)
console.log(`wrote ${out}`)
