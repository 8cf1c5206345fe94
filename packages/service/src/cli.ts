import { openDatabase } from './db/open-database.js'
import { parseServiceEnv } from './env.js'
import { runCli } from './run-cli.js'

// Entry point of the `tollgate` admin CLI: reads the environment and wires the real database.
const env = parseServiceEnv(process.env)
process.exitCode = await runCli(process.argv.slice(2), {
  openDatabase: () => openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR }),
  out: (text) => console.log(text),
  err: (text) => console.error(text),
})
