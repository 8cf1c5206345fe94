import { dirname, join } from 'node:path'
import { openDatabase } from './db/open-database.js'
import { parseServiceEnv } from './env.js'
import { runCli } from './run-cli.js'

// Entry point of the `tollgate` admin CLI: reads the environment and wires the real database.
// Ctrl-C (or SIGTERM) stops the long-running commands (`listen`, `worker`) gracefully.
const env = parseServiceEnv(process.env)
const controller = new AbortController()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort())
}
process.exitCode = await runCli(process.argv.slice(2), {
  openDatabase: () => openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR }),
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  signal: controller.signal,
  manifestPath: env.TOLLGATE_MANIFEST ?? join(dirname(env.TOLLGATE_DATA_DIR), 'sandbox.json'),
})
