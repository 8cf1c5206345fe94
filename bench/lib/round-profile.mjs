// Preload (`--import`) for a serving process, e.g. BENCH_OURS_NODE_ARGS="--import ./bench/lib/round-profile.mjs"
// in bench/facilitator-sandbox.ts: one CPU profile per burst of requests (a bench round). The V8
// profiler starts at the first request after an idle spell and stops RP_IDLE_MS (default 150) after
// the last one; each profile goes to $RP_OUT_DIR (default the OS temp dir) as
// round-<sandbox|standalone>-<pid>-<n>.cpuprofile, with the requests it saw in a .json beside it.
// bench/lib/profile-self.mjs sums a profile's self time by function.
// Benchmark instrumentation only.
import { subscribe } from 'node:diagnostics_channel'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { servingTag } from './serving-tag.mjs'

const tag = servingTag()
if (tag) {
  const dir = process.env.RP_OUT_DIR ?? tmpdir()
  const idleMs = Number(process.env.RP_IDLE_MS ?? 150)
  const session = new Session()
  session.connect()
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))),
    )
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: Number(process.env.RP_INTERVAL_US ?? 500) })
  let running = false
  let lastRequest = 0
  let requests = 0
  let n = 0
  let startedAt = 0
  subscribe('http.server.request.start', () => {
    lastRequest = performance.now()
    requests += 1
    if (!running) {
      running = true
      requests = 1
      startedAt = Date.now()
      session.post('Profiler.start')
      const timer = setInterval(async () => {
        if (performance.now() - lastRequest < idleMs) {
          return
        }
        clearInterval(timer)
        const { profile } = await post('Profiler.stop')
        n += 1
        const base = join(dir, `round-${tag}-${process.pid}-${n}`)
        writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile))
        writeFileSync(`${base}.json`, JSON.stringify({ startedAt, requests }))
        running = false
      }, 50)
    }
  })
}
