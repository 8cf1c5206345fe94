import { parse, protocol } from '@electric-sql/pglite'
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
import { DATA_STATEMENT, nextStatementName, SCHEMA_CHANGE, StatementCache } from './statement-cache.js'

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
  /** The extended protocol, for named prepared statements (see {@link PreparedStatements}). */
  execProtocolStream(message: Uint8Array): Promise<unknown[]>
  runExclusive<T>(fn: () => Promise<T>): Promise<T>
  readonly serializers: Record<number | string, (value: never) => string>
  readonly parsers: Record<number | string, (value: string, typeId?: number) => unknown>
}

// PGlite's backend messages, `unknown` in the session type so the declarations stay PGlite-free.
type PgliteMessages = Parameters<typeof parse.parseResults>[0]

/**
 * A Kysely dialect over one PGlite instance. PGlite is a single Postgres session, so connections
 * are handed out one holder at a time (FIFO): a transaction's statements never interleave with
 * another caller's. A holder must release before it asks again (inside a transaction, use `trx`,
 * not `db`), or it waits for itself. `onClose` runs once PGlite closed (releasing a data
 * directory's lock, see `lockDataDirectory`).
 *
 * Data statements (`select`, `insert`, `update`, `delete`, `with`) run as named prepared
 * statements, kept per SQL text: PGlite runs Postgres in this thread, so parsing, analysing and
 * planning a statement again on every call is CPU the whole process waits for (issue #15, measured
 * by bench/pglite-prepared.ts).
 *
 * Every `replanEvery` data statements the session drops its cached plans (`discard plans`), so each
 * prepared statement is planned again on its next run. Postgres keeps a prepared statement's generic
 * plan until something invalidates it, which on a server autovacuum's `analyze` does as tables grow;
 * PGlite runs no autovacuum, so a plan made while the tables were nearly empty (scan every ledger
 * account of the environment, say) would stay for the life of the process however large they grow
 * (bench/x402-credit-plan.ts, docs/x402-merchant.md "Benchmark").
 */
export function createPgliteDialect(
  pglite: PgliteSession,
  options: {
    onClose?: () => Promise<void>
    /** How many statements stay prepared (least recently used dropped first); 0 prepares none. */
    preparedStatements?: number
    /** After how many data statements the cached plans are dropped and made again (default 1000; 0 never). */
    replanEvery?: number
  } = {},
): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () =>
      new PgliteDriver(
        pglite,
        options.onClose,
        options.preparedStatements ?? 100,
        options.replanEvery ?? 1000,
      ),
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
  readonly #prepared: PreparedStatements

  constructor(
    pglite: PgliteSession,
    onClose: (() => Promise<void>) | undefined,
    preparedStatements: number,
    replanEvery: number,
  ) {
    this.#pglite = pglite
    this.#onClose = onClose
    this.#prepared = new PreparedStatements(pglite, preparedStatements, replanEvery)
  }

  async init(): Promise<void> {
    await this.#pglite.waitReady
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const unlock = await this.#mutex.lock()
    // A fresh handle per checkout, so a stale handle can never release someone else's turn.
    const connection = new PgliteConnection(this.#pglite, this.#prepared)
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
  readonly #prepared: PreparedStatements

  constructor(pglite: PgliteSession, prepared: PreparedStatements) {
    this.#pglite = pglite
    this.#prepared = prepared
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result =
      (await this.#prepared.execute<R>(query.sql, query.parameters)) ??
      (await this.#pglite.query<R>(query.sql, [...query.parameters]))
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

const { serialize } = protocol

/**
 * The named prepared statements of one PGlite session, least recently used first. What
 * `PGlite.query` does with an unnamed statement (parse, describe the parameters, serialize them by
 * type, bind, execute, parse the rows with the session's parsers), except that the parse and the
 * describe happen once per SQL text: a cached statement is one Bind/Describe/Execute/Sync round.
 */
class PreparedStatements {
  readonly #pglite: PgliteSession
  readonly #max: number
  readonly #statements: StatementCache<{ name: string; paramTypes: number[] }>
  readonly #replanEvery: number
  #sinceReplan = 0
  #closing: string[] = []

  constructor(pglite: PgliteSession, max: number, replanEvery: number) {
    this.#pglite = pglite
    this.#max = max
    this.#statements = new StatementCache(max)
    this.#replanEvery = replanEvery
  }

  /** Runs `sql` as a prepared statement; undefined (nothing run) when it is not one to prepare. */
  async execute<R>(
    sql: string,
    parameters: readonly unknown[],
  ): Promise<{ rows: R[]; affectedRows?: number } | undefined> {
    if (this.#max === 0 || !DATA_STATEMENT.test(sql)) {
      if (SCHEMA_CHANGE.test(sql)) {
        this.#forgetAll()
      }
      return undefined
    }
    return this.#pglite.runExclusive(async () => {
      await this.#replanWhenDue()
      const statement = this.#statements.use(sql) ?? (await this.#prepare(sql))
      const values = parameters.map((value, index) => this.#serialize(value, statement.paramTypes[index]))
      try {
        const messages = await this.#pglite.execProtocolStream(
          concat([
            serialize.bind({ statement: statement.name, values }),
            serialize.describe({ type: 'P' }),
            serialize.execute({}),
            serialize.sync(),
          ]),
        )
        const [result] = parse.parseResults(messages as PgliteMessages, this.#pglite.parsers)
        return {
          rows: (result?.rows ?? []) as R[],
          ...(result?.affectedRows === undefined ? {} : { affectedRows: result.affectedRows }),
        }
      } catch (error) {
        throw Object.assign(error as object, { query: sql, params: parameters })
      }
    })
  }

  async #prepare(sql: string): Promise<{ name: string; paramTypes: number[] }> {
    const name = nextStatementName()
    this.#closing.push(...this.#statements.makeRoom())
    const closes = this.#closing.map((old) => serialize.close({ type: 'S', name: old }))
    this.#closing = []
    try {
      const messages = await this.#pglite.execProtocolStream(
        concat([
          ...closes,
          serialize.parse({ name, text: sql }),
          serialize.describe({ type: 'S', name }),
          serialize.sync(),
        ]),
      )
      const statement = { name, paramTypes: parse.parseDescribeStatementResults(messages as PgliteMessages) }
      this.#statements.set(sql, statement)
      return statement
    } catch (error) {
      throw Object.assign(error as object, { query: sql })
    }
  }

  // Allowed inside a transaction block too: the plans are only made again, nothing else changes.
  async #replanWhenDue() {
    if (this.#replanEvery <= 0) {
      return
    }
    this.#sinceReplan += 1
    if (this.#sinceReplan > this.#replanEvery) {
      this.#sinceReplan = 1
      await this.#pglite.execProtocolStream(serialize.query('discard plans'))
    }
  }

  #serialize(value: unknown, type: number | undefined): string | null {
    if (value === null || value === undefined) {
      return null
    }
    const serializer = type === undefined ? undefined : this.#pglite.serializers[type]
    return serializer ? serializer(value as never) : String(value)
  }

  #forgetAll() {
    this.#closing.push(...this.#statements.clear())
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
