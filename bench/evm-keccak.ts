// keccak256 as the facilitator's verify hashes (@tollgate/evm's keccakBytes: the `keccak` addon's
// sponge state, re-initialized per hash) against the `keccak` package's createKeccakHash, which
// wraps every hash in a new stream Transform (what keccakBytes did before). Alternating blocks in
// one process; CPU time per hash from process.cpuUsage(), so the load of the machine moves both
// alike. A verify hashes three times (struct, digest, recovered key). Writes bench/results/evm-keccak.json.

import { writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { keccakBytes } from '../packages/evm/src/rpc/abi-words.js'
import { round } from './lib/stats.js'

const here = dirname(fileURLToPath(import.meta.url))
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 10)
const HASHES = Number(process.env.BENCH_HASHES ?? 20_000)
type KeccakHash = { update(data: Buffer): KeccakHash; digest(): Buffer }
const createKeccakHash = createRequire(join(here, '..', 'packages', 'evm', 'package.json'))('keccak') as (
  algorithm: 'keccak256',
) => KeccakHash

// An EIP-3009 struct: type hash and six words.
const input = Buffer.alloc(224, 7)
const variants: Record<string, () => Uint8Array> = {
  createKeccakHash: () => new Uint8Array(createKeccakHash('keccak256').update(input).digest()),
  keccakBytes: () => keccakBytes(input),
}
if (Buffer.compare(Buffer.from(variants.createKeccakHash?.() ?? []), Buffer.from(keccakBytes(input))) !== 0) {
  throw new Error('the two paths disagree')
}
const micros: Record<string, number[]> = { createKeccakHash: [], keccakBytes: [] }
for (let b = 0; b < BLOCKS; b++) {
  for (const [name, hash] of Object.entries(variants)) {
    const from = process.cpuUsage()
    for (let i = 0; i < HASHES; i++) {
      hash()
    }
    const used = process.cpuUsage(from)
    micros[name]?.push((used.user + used.system) / HASHES)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const summary = Object.fromEntries(Object.entries(micros).map(([k, xs]) => [k, round(median(xs))]))
const body = {
  benchmark: 'evm-keccak',
  date: new Date().toISOString(),
  node: process.version,
  loadavg: loadavg().map(round),
  setup: `keccak256 of ${input.length} bytes; median of ${BLOCKS} alternating blocks of ${HASHES} hashes; CPU microseconds per hash`,
  cpuMicrosPerHash: summary,
}
await writeFile(join(here, 'results', 'evm-keccak.json'), `${JSON.stringify(body, null, 2)}\n`)
console.log(JSON.stringify(body))
