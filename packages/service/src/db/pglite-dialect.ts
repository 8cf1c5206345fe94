import type { PGlite } from '@electric-sql/pglite'
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'

/**
 * A Kysely dialect over one PGlite instance. PGlite is a single Postgres session, so the driver
 * hands its one connection to one holder at a time: `acquireConnection` waits until the previous
 * holder released it. Two concurrent Kysely transactions therefore run one after the other instead
 * of interleaving their statements on the same session.
 *
 * A holder must not acquire a second connection before releasing the first (for example run
 * `db.selectFrom` instead of `trx.selectFrom` inside a transaction): that would wait forever.
 */
export function createPgliteDialect(pglite: PGlite): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PgliteDriver(pglite),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }
}

// A FIFO lock: each acquire resolves after every earlier holder has called its release.
class ConnectionLock {
  #tail: Promise<void> = Promise.resolve()

  acquire(): Promise<() => void> {
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const previous = this.#tail
    this.#tail = previous.then(() => released)
    return previous.then(() => release)
  }
}

class PgliteDriver implements Driver {
  readonly #pglite: PGlite
  readonly #lock = new ConnectionLock()
  readonly #connection: PgliteConnection
  #release: (() => void) | undefined

  constructor(pglite: PGlite) {
    this.#pglite = pglite
    this.#connection = new PgliteConnection(pglite)
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.#release = await this.#lock.acquire()
    return this.#connection
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const mode = [
      settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : '',
      settings.accessMode ?? '',
    ]
      .filter(Boolean)
      .join(' ')
    await connection.executeQuery(CompiledQuery.raw(mode ? `start transaction ${mode}` : 'begin'))
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`))
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdentifier(name)}`))
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdentifier(name)}`))
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release
    this.#release = undefined
    release?.()
  }

  async destroy(): Promise<void> {
    // Wait for the current holder so closing never cuts a transaction in half.
    const release = await this.#lock.acquire()
    try {
      if (!this.#pglite.closed) {
        await this.#pglite.close()
      }
    } finally {
      release()
    }
  }
}

class PgliteConnection implements DatabaseConnection {
  readonly #pglite: PGlite

  constructor(pglite: PGlite) {
    this.#pglite = pglite
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters])
    // Kysely reads numAffectedRows only for INSERT/UPDATE/DELETE results.
    return { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) }
  }

  // biome-ignore lint/correctness/useYield: streaming is not supported by this dialect.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported on PGlite')
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}
