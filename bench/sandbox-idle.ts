// What an idle sandbox costs (issue #19): starts `packages/service/src/main.ts` as `npm start` does
// (six anvils, LiteSVM, PGlite, the chain watchers and the job runner), lets it settle, then reads its
// process CPU time (/proc) over BENCH_IDLE_SECONDS with no request at all. With BENCH_COUNT_IO=1
// (default) the process is preloaded with bench/lib/count-io.mjs and the SQL statements and JSON-RPC
// calls of the idle window are reported per second, by statement shape and by method.
// Writes bench/results/sandbox-idle.json.
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..')
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20)
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 5)
const COUNT_IO = process.env.BENCH_COUNT_IO !== '0'
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)

type Counts = { sql: Record<string, number>; rpc: Record<string, number> }

async function cpuMicros(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function readCounts(file: string): Promise<Counts> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Counts
  } catch {
    return { sql: {}, rpc: {} }
  }
}

function perSecond(after: Record<string, number>, before: Record<string, number>) {
  const out: Record<string, number> = {}
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0)
    if (d > 0) {
      out[key] = Math.round((d / IDLE_SECONDS) * 100) / 100
    }
  }
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]))
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-bench-idle-'))
  const countFile = join(dir, 'io.json')
  const child = spawn(
    process.execPath,
    [
      ...NODE_ARGS,
      '--conditions=tollgate-source',
      '--import',
      'tsx',
      ...(COUNT_IO ? ['--import', join(here, 'lib', 'count-io.mjs')] : []),
      'packages/service/src/main.ts',
      '--port',
      '0',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        TOLLGATE_DATA_DIR: join(dir, 'data'),
        TOLLGATE_MANIFEST: join(dir, 'sandbox.json'),
        COUNT_IO_FILE: countFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  try {
    await new Promise<void>((resolve, reject) => {
      let out = ''
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (/Tollgate sandbox ready/.test(out)) {
          resolve()
        }
      })
      child.once('exit', (code) => reject(new Error(`sandbox exited (${code})`)))
    })
    child.stdout?.resume()
    await sleep(SETTLE_SECONDS * 1000)
    const pid = child.pid as number
    const load = loadavg()[0]
    const cpuFrom = await cpuMicros(pid)
    const ioFrom = await readCounts(countFile)
    await sleep(IDLE_SECONDS * 1000)
    const cpu = (await cpuMicros(pid)) - cpuFrom
    // The counts file is written every second: wait for a write after the window.
    await sleep(1100)
    const ioTo = await readCounts(countFile)
    const sql = perSecond(ioTo.sql, ioFrom.sql)
    const rpc = perSecond(ioTo.rpc, ioFrom.rpc)
    const total = (m: Record<string, number>) =>
      Math.round(Object.values(m).reduce((a, b) => a + b, 0) * 100) / 100
    const result = {
      idleSeconds: IDLE_SECONDS,
      loadavg1: load,
      cpuMicrosPerSecond: Math.round(cpu / IDLE_SECONDS),
      sqlPerSecond: total(sql),
      rpcPerSecond: total(rpc),
      sql,
      rpc,
    }
    console.log(JSON.stringify(result, null, 2))
    await mkdir(join(here, 'results'), { recursive: true })
    await writeFile(join(here, 'results', 'sandbox-idle.json'), `${JSON.stringify(result, null, 2)}\n`)
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
