#!/usr/bin/env node
// The `tollgate` command. Published (and in the monorepo after a build) it runs the build in dist/.
// In a fresh clone with no build it runs the TypeScript sources: a child node with tsx and the
// `tollgate-source` export condition, so the workspace packages resolve to their sources too.
// The long-running servers (`start`, `serve`, `facilitator`, `worker`) run in a child node with a
// fixed 32 MB V8 semi-space: the facilitator then ran a fifth to a tenth of the scavenges of the
// default young generation (docs/facilitator.md, "Verify CPU, idle watchers and GC"). V8 sizes it at
// start only, so it cannot be set from inside this process. And without V8's allocation-site
// pretenuring: sites that V8 marked long-lived while the server started kept allocating the
// requests' short-lived objects straight into the old generation, whose mark-compacts then landed
// in one verify round of three (docs/facilitator.md, "Uneven sandbox rounds").
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const SERVERS = new Set(['start', 'serve', 'facilitator', 'worker'])
const SERVER_V8_FLAGS = [
  '--max-semi-space-size=32',
  '--min-semi-space-size=32',
  '--no-allocation-site-pretenuring',
]

const built = new URL('../dist/main.js', import.meta.url)
const args = process.argv.slice(2)
const server = SERVERS.has(args[0] ?? '')
if (existsSync(built) && !server) {
  await import(built.href)
} else {
  const entry = existsSync(built)
    ? [fileURLToPath(built)]
    : [
        '--conditions=tollgate-source',
        '--import',
        'tsx',
        fileURLToPath(new URL('../src/main.ts', import.meta.url)),
      ]
  const child = spawn(process.execPath, [...(server ? SERVER_V8_FLAGS : []), ...entry, ...args], {
    stdio: 'inherit',
  })
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal))
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0)
  })
}
