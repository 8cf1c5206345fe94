// Preload (`--import`) for a serving process, e.g. BENCH_OURS_NODE_ARGS="--import ./bench/lib/gc-stat.mjs"
// in bench/facilitator-sandbox.ts: counts V8's garbage collections by kind and sums their pauses,
// counts the HTTP requests the process sends through undici (the facilitator's eth_calls), and
// prints the running totals with the process's CPU time to stderr every 10 s and at exit.
// Benchmark instrumentation only.
import { subscribe } from 'node:diagnostics_channel'
import { constants, PerformanceObserver } from 'node:perf_hooks'

let requests = 0
subscribe('undici:request:create', () => {
  requests += 1
})

const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
}
const sums = {}
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = kinds[entry.detail?.kind] ?? 'other'
    sums[kind] ??= { count: 0, ms: 0 }
    sums[kind].count += 1
    sums[kind].ms += entry.duration
  }
}).observe({ entryTypes: ['gc'] })

let last = ''
const print = () => {
  const text = `undici requests ${requests}; ${Object.entries(sums)
    .map(([kind, s]) => `${kind} ${s.count} (${s.ms.toFixed(0)} ms)`)
    .join(', ')}`
  if (text !== last) {
    last = text
    const cpu = process.cpuUsage()
    process.stderr.write(
      `GCSTAT ${process.argv[1]} pid ${process.pid} cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms: ${text}\n`,
    )
  }
}
setInterval(print, 10_000).unref()
process.once('exit', print)
