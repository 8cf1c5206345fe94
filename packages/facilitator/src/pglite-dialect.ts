import { AppError } from '@tollgate/core'
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
 * The part of a PGlite instance the dialect uses. Structural, so the published declarations do not
 * import `@electric-sql/pglite`'s, which need `@types/emscripten` (a devDependency of PGlite) and
 * fail a consumer that type-checks libraries (docs/packages.md).
 */
export type PgliteSession = {
  readonly waitReady: Promise<void>
  readonly closed: boolean
  close(): Promise<void>
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>
}

/**
 * A Kysely dialect over one PGlite instance. PGlite is a single Postgres session, so connections
 * are handed out one holder at a time (FIFO): a transaction's statements never interleave with
 * another caller's. A holder must release before it asks again (inside a transaction, use `trx`,
 * not `db`), or it waits for itself. `onClose` runs once PGlite closed (releasing a data
 * directory's lock, see `lockDataDirectory`).
 */
export function createPgliteDialect(
  pglite: PgliteSession,
  options: { onClose?: () => Promise<void> } = {},
): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new PgliteDriver(pglite, options.onClose),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }
}

/** A FIFO mutex: `lock()` resolves with an unlock function once every earlier holder unlocked. */
export function createMutex(): { lock(): Promise<() => void> } {
  let tail: Promise<void> = Promise.resolve()
  return {
    lock() {
      let unlock = () => {}
      const next = new Promise<void>((resolve) => {
        unlock = resolve
      })
      const previous = tail
      tail = previous.then(() => next)
      return previous.then(() => unlock)
    },
  }
}

class PgliteDriver implements Driver {
  readonly #pglite: PgliteSession
  readonly #mutex = createMutex()
  readonly #unlocks = new WeakMap<DatabaseConnection, () => void>()
  readonly #onClose: (() => Promise<void>) | undefined

  constructor(pglite: PgliteSession, onClose: (() => Promise<void>) | undefined) {
    this.#pglite = pglite
    this.#onClose = onClose
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const unlock = await this.#mutex.lock()
    // A fresh handle per checkout, so a stale handle can never release someone else's turn.
    const connection = new PgliteConnection(this.#pglite)
    this.#unlocks.set(connection, unlock)
    return connection
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#unlocks.get(connection)?.()
    this.#unlocks.delete(connection)
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const options = [
      settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : undefined,
      settings.accessMode,
    ].filter((part): part is string => part !== undefined)
    const sql = options.length > 0 ? `start transaction ${options.join(' ')}` : 'begin'
    await connection.executeQuery(CompiledQuery.raw(sql))
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quote(name)}`))
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quote(name)}`))
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quote(name)}`))
  }

  async destroy(): Promise<void> {
    // Take the last turn so closing never cuts a running transaction in half.
    const unlock = await this.#mutex.lock()
    try {
      if (!this.#pglite.closed) {
        await this.#pglite.close()
      }
      await this.#onClose?.()
    } finally {
      unlock()
    }
  }
}

class PgliteConnection implements DatabaseConnection {
  readonly #pglite: PgliteSession

  constructor(pglite: PgliteSession) {
    this.#pglite = pglite
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#pglite.query<R>(query.sql, [...query.parameters])
    return {
      rows: result.rows,
      ...(result.affectedRows === undefined ? {} : { numAffectedRows: BigInt(result.affectedRows) }),
    }
  }

  // biome-ignore lint/correctness/useYield: PGlite has no cursor streaming; Kysely only calls this for .stream().
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new AppError('internal_error', { message: 'the PGlite dialect does not stream queries' })
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`
}
