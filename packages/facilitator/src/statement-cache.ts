// What the PGlite dialect and the pg pool's prepared statements share: which statements are
// prepared, which ones make the prepared ones stale, their names, and the least-recently-used bound.

/** Statements run as named prepared statements: the data statements, whose text repeats. */
export const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i

/**
 * Statements after which a prepared `select *` or `returning *` could change its columns, which
 * Postgres refuses ("cached plan must not change result type"): the prepared ones start over.
 */
export const SCHEMA_CHANGE = /^\s*(create|alter|drop|do)\b/i

let statementCount = 0

/** A statement name unique in the process, so two caches over one session never collide. */
export function nextStatementName(): string {
  return `tollgate_${statementCount++}`
}

/** One session's prepared statements by SQL text, at most `max`, least recently used dropped first. */
export class StatementCache<T extends { name: string }> {
  readonly #max: number
  readonly #entries = new Map<string, T>()

  constructor(max: number) {
    this.#max = max
  }

  /** The statement prepared for `sql`, now the most recently used; undefined when there is none. */
  use(sql: string): T | undefined {
    const entry = this.#entries.get(sql)
    if (entry) {
      this.#entries.delete(sql)
      this.#entries.set(sql, entry)
    }
    return entry
  }

  /** Makes room for one more statement: the names of the ones dropped, for the caller to close. */
  makeRoom(): string[] {
    const dropped: string[] = []
    while (this.#entries.size >= this.#max) {
      const [oldest] = this.#entries
      if (!oldest) {
        break
      }
      this.#entries.delete(oldest[0])
      dropped.push(oldest[1].name)
    }
    return dropped
  }

  set(sql: string, entry: T): void {
    this.#entries.set(sql, entry)
  }

  delete(sql: string): void {
    this.#entries.delete(sql)
  }

  /** Forgets every statement: their names, for the caller to close. */
  clear(): string[] {
    const names = [...this.#entries.values()].map((entry) => entry.name)
    this.#entries.clear()
    return names
  }
}
