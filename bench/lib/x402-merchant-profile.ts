// Summarizes V8 CPU profiles written by `BENCH_CPU_PROFILE=1 bench/x402-merchant.ts`, side by side:
// `node --import tsx bench/lib/x402-merchant-profile.ts <a.cpuprofile> <b.cpuprofile> [--ops N]`.
// Prints the sampled time per settle (ms) by where the code lives (package or node internal), and
// the functions with the most self time, so the merchant side's extra CPU can be read against the
// bare facilitator's. Not a benchmark (bench/run.ts runs only bench/*.ts).
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'

type Node = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  children?: number[]
}
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const args = process.argv.slice(2)
const opsAt = args.indexOf('--ops')
const ops = opsAt >= 0 ? Number(args[opsAt + 1]) : 320
const files = args.filter((a, i) => !a.startsWith('--') && (opsAt < 0 || i !== opsAt + 1))
const top = Number(process.env.TOP ?? 40)

function where(url: string, name: string): string {
  if (url === '') {
    return name.startsWith('(') ? name : '(native)'
  }
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (modules?.[1]) {
    return modules[1]
  }
  const own = /packages\/([^/]+)\/src\/(?:([^/]+)\/)?/.exec(url)
  if (own?.[1]) {
    return own[2] && !own[2].endsWith('.ts') ? `@tollgate/${own[1]}/${own[2]}` : `@tollgate/${own[1]}`
  }
  if (url.startsWith('node:')) {
    return url
      .replace(/^node:internal\//, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/')
  }
  return basename(url)
}

// A function by name and place. Our packages' files are named (tsx compiles each to one line, so
// their anonymous functions are told apart by column); others by package and line.
function functionKey({ functionName, url, lineNumber, columnNumber }: Node['callFrame']): string {
  const own = /packages\/([^/]+)\/src\/(.+)$/.exec(url)
  const place = own
    ? `@tollgate/${own[1]}/${own[2]}:${lineNumber + 1}:${columnNumber + 1}`
    : `${where(url, functionName)}:${lineNumber + 1}`
  return `${functionName || '(anonymous)'} ${place}`
}

function summarize(file: string) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const byWhere = new Map<string, number>()
  const byFunction = new Map<string, number>()
  for (const [id, us] of self) {
    const node = byId.get(id)
    if (!node) {
      continue
    }
    const { functionName, url } = node.callFrame
    const w = where(url, functionName)
    byWhere.set(w, (byWhere.get(w) ?? 0) + us)
    const f = functionKey(node.callFrame)
    byFunction.set(f, (byFunction.get(f) ?? 0) + us)
  }
  // Inclusive: every function on a sample's stack gets the sample once.
  const parent = new Map<number, number>()
  for (const n of profile.nodes) {
    for (const c of n.children ?? []) {
      parent.set(c, n.id)
    }
  }
  const inclusive = new Map<string, number>()
  for (const [id, us] of self) {
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at)
      if (!node) {
        break
      }
      const f = functionKey(node.callFrame)
      if (!seen.has(f)) {
        seen.add(f)
        inclusive.set(f, (inclusive.get(f) ?? 0) + us)
      }
    }
  }
  const idle = byWhere.get('(idle)') ?? 0
  const total = [...byWhere.values()].reduce((a, b) => a + b, 0)
  return { file, byWhere, byFunction, inclusive, busyMsPerOp: (total - idle) / 1000 / ops }
}

const summaries = files.map(summarize)
const perOp = (us: number | undefined) => ((us ?? 0) / 1000 / ops).toFixed(3)
const header = ['', ...summaries.map((s) => basename(s.file).replace(/\.cpuprofile$/, ''))]
console.log(header.join('\t'))
console.log(
  ['busy ms per settle (sampled, not idle)', ...summaries.map((s) => s.busyMsPerOp.toFixed(3))].join('\t'),
)
for (const key of ['byWhere', 'byFunction', 'inclusive'] as const) {
  const names = new Set(summaries.flatMap((s) => [...s[key].keys()]))
  const rows = [...names]
    .filter((n) => n !== '(idle)')
    .map((n) => ({ n, values: summaries.map((s) => s[key].get(n) ?? 0) }))
    .sort((a, b) => Math.max(...b.values) - Math.max(...a.values))
    .slice(0, top)
  const titles = {
    byWhere: 'self ms per settle, by where the code lives',
    byFunction: 'self ms per settle, by function',
    inclusive: 'inclusive ms per settle (the function and what it calls), by function',
  }
  console.log(`\n${titles[key]}`)
  for (const row of rows) {
    console.log([row.n, ...row.values.map(perOp)].join('\t'))
  }
}
