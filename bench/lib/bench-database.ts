import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createDefaultSettings,
  createIdGenerator,
  createLogger,
  createRails,
  type Deps,
  deriveSandboxSecretKeyring,
  type OpenedDatabase,
  openDatabase,
  systemClock,
} from '@tollgate/service'
import pg from 'pg'

/** A database engine a service benchmark runs on. */
export type BenchEngine = 'pglite' | 'postgres'

/**
 * Opens a fresh service database: PGlite in a temporary directory, or a private schema on the
 * PostgreSQL server at `postgresUrl` (so the benchmark never touches other data there); `close()`
 * removes either.
 */
export async function openBenchDatabase(
  engine: BenchEngine,
  options: { postgresUrl?: string | undefined; poolSize: number; onQuery?: (sql: string) => void },
): Promise<OpenedDatabase> {
  const onQuery = options.onQuery ? { onQuery: options.onQuery } : {}
  if (engine === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-bench-'))
    const opened = await openDatabase({ dataDir, ...onQuery })
    return {
      ...opened,
      close: () => opened.close().then(() => rm(dataDir, { recursive: true, force: true })),
    }
  }
  const { postgresUrl } = options
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`
  const opened = await openDatabase({
    databaseUrl: postgresUrl,
    schema,
    poolSize: options.poolSize,
    ...onQuery,
  })
  return {
    ...opened,
    close: async () => {
      await opened.close()
      const client = new pg.Client({ connectionString: postgresUrl })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    },
  }
}

/** Service deps over a benchmark database: system clock, fresh ids, a quiet logger, sandbox rails and settings. */
export function createBenchDeps(
  opened: OpenedDatabase,
  options: { logLevel?: 'silent' | 'warn' } = {},
): Deps {
  const base = {
    db: opened.db,
    clock: systemClock,
    ids: createIdGenerator(),
    logger: createLogger({ level: options.logLevel ?? 'silent' }),
  }
  // One fixed keyring, so worker processes read the webhook secrets the parent stored.
  const secretKeyring = deriveSandboxSecretKeyring('00'.repeat(64))
  return { ...base, rails: createRails(base), settings: createDefaultSettings({ secretKeyring }) }
}
