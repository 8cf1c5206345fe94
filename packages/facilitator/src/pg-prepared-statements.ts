import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'
import { DATA_STATEMENT, nextStatementName, SCHEMA_CHANGE, StatementCache } from './statement-cache.js'

/** Options of {@link withPreparedStatements}. */
export type PreparedStatementsOptions = {
  /** Statements kept prepared per connection, least recently used closed first (default 100); 0 prepares none. */
  max?: number
}

/**
 * A `pg` pool for Kysely's `PostgresDialect` whose connections run data statements (`select`,
 * `insert`, `update`, `delete`, `with`) as named prepared statements, kept per connection and SQL
 * text (the `max` most recently used). `pg` sends an unnamed statement otherwise, which PostgreSQL
 * parses, analyses and plans on every call: for the one indexed select of GET
 * /payments/reference/{reference} that was three quarters of its backend's CPU (docs/sessions.md).
 * A prepared statement's first run costs what an unnamed one does; later runs are bind and execute.
 *
 * A `create`, `alter`, `drop` or `do` run through the pool makes every connection close its
 * statements before its next one, so a prepared `select *` never meets a changed table; a table
 * changed by another process fails a statement once per connection with "cached plan must not
 * change result type", after which it is prepared again (and run again at once outside a
 * transaction). From a statement's sixth run PostgreSQL may plan it generically: a parameter in an
 * `on conflict (...) where ...` predicate must be a literal (`sql.lit`; docs/facilitator.md).
 */
export function withPreparedStatements(
  pool: PostgresPool,
  options: PreparedStatementsOptions = {},
): PostgresPool {
  const max = options.max ?? 100
  if (max === 0) {
    return pool
  }
  const shared = { schemaVersion: 0 }
  const wrapped = new WeakMap<pg.PoolClient, PreparingClient>()
  return {
    async connect() {
      // A `pg` pool's client (typed structurally in the signature, so the published declarations
      // need no `@types/pg`): its named-statement query form is what this relies on.
      const client = (await pool.connect()) as unknown as pg.PoolClient
      let preparing = wrapped.get(client)
      if (!preparing) {
        preparing = new PreparingClient(client, max, shared)
        wrapped.set(client, preparing)
      }
      return preparing
    },
    end: () => pool.end(),
  }
}

// pg's record of what it parsed on a connection (not in its typings): forgotten with the statement,
// so a closed statement's entry does not stay behind.
type PgConnectionState = { parsedStatements?: Record<string, string> }

const BEGIN = /^\s*(begin|start\s+transaction)\b/i
const END = /^\s*(commit|end|abort|rollback)\b(?!\s+to\b)/i

class PreparingClient implements PostgresPoolClient {
  readonly #client: pg.PoolClient
  readonly #statements: StatementCache<{ name: string }>
  readonly #shared: { schemaVersion: number }
  #schemaVersion: number
  #inTransaction = false

  constructor(client: pg.PoolClient, max: number, shared: { schemaVersion: number }) {
    this.#client = client
    this.#statements = new StatementCache(max)
    this.#shared = shared
    this.#schemaVersion = shared.schemaVersion
  }

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    const client = this.#client as unknown as PostgresPoolClient
    if (typeof sqlOrCursor !== 'string') {
      return client.query(sqlOrCursor)
    }
    const values = [...(parameters ?? [])]
    if (!DATA_STATEMENT.test(sqlOrCursor)) {
      if (SCHEMA_CHANGE.test(sqlOrCursor)) {
        return this.#changeSchema<R>(sqlOrCursor, values)
      }
      if (BEGIN.test(sqlOrCursor)) {
        this.#inTransaction = true
      } else if (END.test(sqlOrCursor)) {
        this.#inTransaction = false
      }
      return client.query<R>(sqlOrCursor, values)
    }
    return this.#prepared<R>(sqlOrCursor, values)
  }

  release(): void {
    this.#inTransaction = false
    this.#client.release()
  }

  // The connection that changed the schema closes its statements at once (the migrations pay for
  // it at start, not the first request after them); the others before their next statement.
  async #changeSchema<R>(sql: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    try {
      return await (this.#client as unknown as PostgresPoolClient).query<R>(sql, values)
    } finally {
      this.#shared.schemaVersion++
      this.#schemaVersion = this.#shared.schemaVersion
      await this.#close(this.#statements.clear())
    }
  }

  // Sent in the caller's tick when nothing needs closing first (pg writes an idle connection's
  // query at once), so the wrapper adds no turn of the event loop before the round trip.
  #prepared<R>(sql: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    if (this.#schemaVersion !== this.#shared.schemaVersion) {
      this.#schemaVersion = this.#shared.schemaVersion
      return this.#close(this.#statements.clear()).then(() => this.#prepared<R>(sql, values))
    }
    return this.#run<R>(sql, values).catch((error: unknown) => {
      // The table under a prepared statement changed its columns (another process's migration):
      // prepare it again; outside a transaction, run it again now.
      if ((error as { code?: string }).code !== '0A000' || !/cached plan/.test(String(error))) {
        throw error
      }
      const name = this.#statements.use(sql)?.name
      this.#statements.delete(sql)
      const inTransaction = this.#inTransaction
      return this.#close(name === undefined ? [] : [name]).then(() => {
        if (inTransaction) {
          throw error
        }
        return this.#run<R>(sql, values)
      })
    })
  }

  #run<R>(sql: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    let statement = this.#statements.use(sql)
    let dropped: string[] = []
    if (!statement) {
      dropped = this.#statements.makeRoom()
      statement = { name: nextStatementName() }
      this.#statements.set(sql, statement)
    }
    // pg parses a name it has not parsed on this connection in the same round trip as the run.
    const query = { name: statement.name, text: sql, values }
    const send = () => this.#client.query(query) as unknown as Promise<PostgresQueryResult<R>>
    return dropped.length > 0 ? this.#close(dropped).then(send) : send()
  }

  async #close(names: string[]) {
    const parsed = (this.#client as unknown as { connection?: PgConnectionState }).connection
      ?.parsedStatements
    // A statement whose parse failed is not on the server: closing it would fail a transaction.
    const open = parsed ? names.filter((name) => parsed[name] !== undefined) : names
    if (open.length > 0) {
      try {
        // One round trip for all of them (the simple protocol runs the list in one message).
        await this.#client.query(open.map((name) => `deallocate "${name}"`).join('; '))
      } catch {
        // In a failed transaction they stay until the connection closes; their names are never reused.
      }
    }
    for (const name of names) {
      if (parsed) {
        delete parsed[name]
      }
    }
  }
}
