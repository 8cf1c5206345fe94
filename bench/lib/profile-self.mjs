// node bench/lib/profile-self.mjs <a.cpuprofile> [b.cpuprofile] [--top N]: self time of a V8 CPU
// profile by function (name, file, line), in ms, largest first; with two profiles, both columns and
// their difference (b - a), sorted by the difference. Benchmark instrumentation only.
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const topAt = args.indexOf('--top')
const top = topAt >= 0 ? Number(args[topAt + 1]) : 40
const files = args.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1))

function selfTimes(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const out = new Map()
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i])
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000
    total += dt
    const f = node.callFrame
    const url = f.url.replace(/^file:\/\/.*?\/(node_modules|packages)\//, '$1/')
    const key = `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`
    out.set(key, (out.get(key) ?? 0) + dt)
  }
  return { out, total }
}

const [a, b] = files.map(selfTimes)
if (!b) {
  console.log(`total ${a.total.toFixed(1)} ms`)
  for (const [k, v] of [...a.out].sort((x, y) => y[1] - x[1]).slice(0, top)) {
    console.log(v.toFixed(1).padStart(8), k)
  }
} else {
  console.log(`total ${a.total.toFixed(1)} ms -> ${b.total.toFixed(1)} ms`)
  const keys = new Set([...a.out.keys(), ...b.out.keys()])
  const rows = [...keys].map((k) => [k, a.out.get(k) ?? 0, b.out.get(k) ?? 0])
  for (const [k, x, y] of rows.sort((p, q) => q[2] - q[1] - (p[2] - p[1])).slice(0, top)) {
    console.log(x.toFixed(1).padStart(8), y.toFixed(1).padStart(8), (y - x).toFixed(1).padStart(8), k)
  }
}
