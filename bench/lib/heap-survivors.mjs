// Preload (`--import`) for a serving process, e.g. BENCH_OURS_NODE_ARGS="--import ./bench/lib/heap-survivors.mjs"
// in bench/facilitator-sandbox.ts (with BENCH_PAYLOADS=4000 so a round lasts a few seconds). When more
// than 20 HTTP requests arrive within 50 ms (a round starts), it starts V8's sampling heap profiler
// (HP_INTERVAL bytes, default 4096; objects freed by a GC are dropped), notes the last sample at
// +HP_A ms (default 1000) and at +HP_B ms (default 2000) keeps the samples allocated in [0, HP_A]
// that are still alive: objects that lived at least HP_B - HP_A ms, by allocation stack. It also sums
// the growth of every heap space but the young generation (read every 10 ms), per request served.
// One JSON line per round in $HP_OUT_DIR (default the OS temp dir), survivors-<sandbox|standalone>-<pid>.jsonl.
// Benchmark instrumentation only.

import { subscribe } from 'node:diagnostics_channel'
import { appendFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeapSpaceStatistics } from 'node:v8'
import { servingTag } from './serving-tag.mjs'

const oldUsed = () => {
  let u = 0
  for (const sp of getHeapSpaceStatistics()) {
    if (sp.space_name !== 'new_space' && sp.space_name !== 'new_large_object_space') {
      u += sp.space_used_size
    }
  }
  return u
}
let incoming = 0
subscribe('http.server.request.start', () => {
  incoming += 1
})
const tag = servingTag()
if (tag) {
  const out = join(process.env.HP_OUT_DIR ?? tmpdir(), `survivors-${tag}-${process.pid}.jsonl`)
  const s = new Session()
  s.connect()
  // HP_SPACES_ONLY=1: no profiler calls (they may start collections), only the space growth.
  const spacesOnly = process.env.HP_SPACES_ONLY === '1'
  const empty = { profile: { samples: [], head: { id: 0, callFrame: {}, children: [] } } }
  const post = (m, p) =>
    spacesOnly
      ? Promise.resolve(empty)
      : new Promise((res, rej) => s.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r))))
  const A = Number(process.env.HP_A ?? 1000),
    B = Number(process.env.HP_B ?? 2000)
  const INTERVAL = Number(process.env.HP_INTERVAL ?? 4096)
  let last = 0,
    state = 'idle'
  post('HeapProfiler.enable')
  setInterval(async () => {
    const now = incoming
    const started = now - last > 20
    last = now
    if (state !== 'idle' || !started) {
      return
    }
    state = 'sampling'
    const inc0 = incoming
    let grown = 0,
      prev = oldUsed()
    const bySpace = {},
      prevSp = {}
    for (const sp of getHeapSpaceStatistics()) {
      prevSp[sp.space_name] = sp.space_used_size
    }
    const tick = setInterval(() => {
      const u = oldUsed()
      if (u > prev) {
        grown += u - prev
      }
      prev = u
      for (const sp of getHeapSpaceStatistics()) {
        const d = sp.space_used_size - prevSp[sp.space_name]
        if (d > 0) {
          bySpace[sp.space_name] = (bySpace[sp.space_name] ?? 0) + d
        }
        prevSp[sp.space_name] = sp.space_used_size
      }
    }, 10)
    await post('HeapProfiler.startSampling', {
      samplingInterval: INTERVAL,
      includeObjectsCollectedByMajorGC: false,
      includeObjectsCollectedByMinorGC: false,
    })
    await new Promise((r) => setTimeout(r, A))
    const p1 = (await post('HeapProfiler.getSamplingProfile')).profile
    let ordA = 0
    for (const x of p1.samples) {
      if (x.ordinal > ordA) {
        ordA = x.ordinal
      }
    }
    const incA = incoming
    await new Promise((r) => setTimeout(r, B - A))
    const { profile } = await post('HeapProfiler.getSamplingProfile')
    const incB = incoming
    clearInterval(tick)
    await post('HeapProfiler.stopSampling')
    const parent = new Map(),
      node = new Map()
    const walk = (nd, p) => {
      node.set(nd.id, nd)
      parent.set(nd.id, p)
      for (const ch of nd.children) {
        walk(ch, nd.id)
      }
    }
    walk(profile.head, null)
    const agg = {}
    let bytes = 0
    for (const x of profile.samples) {
      if (x.ordinal > ordA) {
        continue
      }
      bytes += x.size
      const frames = []
      for (let id = x.nodeId; id != null && frames.length < 14; id = parent.get(id)) {
        const f = node.get(id).callFrame
        if (!f.functionName && !f.url) {
          continue
        }
        frames.push(
          `${f.functionName || '(anon)'}@${f.url.replace(new RegExp(`^file://${process.cwd()}/`), '')}:${f.lineNumber}`,
        )
      }
      const k = frames.join(' < ')
      agg[k] = (agg[k] ?? 0) + x.size
    }
    appendFileSync(
      out,
      `${JSON.stringify({ t: new Date().toISOString(), servedInA: incA - inc0, servedAtoB: incB - incA, sampledInA: ordA, survivorBytes: bytes, oldGrowthPerVerify: Math.round(grown / (incB - inc0)), bySpacePerVerify: Object.fromEntries(Object.entries(bySpace).map(([k, v]) => [k, Math.round(v / (incB - inc0))])), agg })}\n`,
    )
    // wait for the round to end before re-arming
    await new Promise((r) => setTimeout(r, 3000))
    last = incoming
    state = 'idle'
  }, 50).unref()
}
