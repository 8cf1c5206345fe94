#!/usr/bin/env node
// The `tollgate` command. Published (and in the monorepo after a build) it runs the build in dist/.
// In a fresh clone with no build it runs the TypeScript sources: a child node with tsx and the
// `tollgate-source` export condition, so the workspace packages resolve to their sources too.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const built = new URL('../dist/main.js', import.meta.url)
if (existsSync(built)) {
  await import(built.href)
} else {
  const source = fileURLToPath(new URL('../src/main.ts', import.meta.url))
  const child = spawn(
    process.execPath,
    ['--conditions=tollgate-source', '--import', 'tsx', source, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  )
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal))
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0)
  })
}
