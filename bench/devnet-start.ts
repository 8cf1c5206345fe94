// Devnet start time, written to bench/results/devnet-start.json:
//   fresh  `startDevnet()` as `npm run devnet` runs it (three anvils with fixtures, LiteSVM), no flags;
//   fork   `startEvmDevnet` with one network forked (`--fork eip155:84532=<url>`) and one `--fund`
//          address, the upstream being a devnet Base Sepolia chain on this machine (so the number is
//          the fork's own setup: placers, token reads, balance-slot probing, approvals; a remote RPC
//          adds its round trips on top).
// Each part runs BENCH_ROUNDS starts (default 5) after one warm-up and reports min/median/max in ms
// with the 1-minute load average before each round. BENCH_PARTS (comma list, default "fresh,fork").
import { writeFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_EVM_NETWORKS, startDevnet, startEvmDevnet } from '@tollgate/devnet'
import { round } from './lib/stats.js'

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const parts = (process.env.BENCH_PARTS ?? 'fresh,fork').split(',')

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

const results: Record<string, unknown> = {}
if (parts.includes('fresh')) {
  results.fresh = await measure(() => startDevnet())
  console.log('fresh', results.fresh)
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
