// `npm run bench`: run every benchmark script in bench/ (each writes JSON to bench/results/),
// one after another so they don't compete for the machine's cores.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const scripts = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort()

const failed: string[] = []
for (const script of scripts) {
  console.log(`\n== bench/${script}`)
  const result = spawnSync(
    process.execPath,
    ['--conditions=tollgate-source', '--import', 'tsx', join(here, script)],
    { stdio: 'inherit' },
  )
  if (result.status !== 0) {
    failed.push(script)
  }
}
console.log(
  `\n${scripts.length - failed.length} of ${scripts.length} benchmarks finished; results in bench/results/`,
)
if (failed.length > 0) {
  console.log(`failed: ${failed.join(', ')}`)
  process.exit(1)
}
