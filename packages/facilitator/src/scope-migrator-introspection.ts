import { type DatabaseIntrospector, type Kysely, type SchemaMetadata, sql, type TableMetadata } from 'kysely'

/**
 * The database handle to give Kysely's `Migrator`, with its introspection limited to one schema.
 *
 * The migrator only asks the introspector whether its own schema and tables exist, but Kysely's
 * PostgreSQL introspector answers by listing every table of every schema and resolving each
 * column's sequence by schema name. When another process drops a schema during that scan (test
 * runs that each own a schema, a tenant being removed), the migration fails with "schema does not
 * exist" for a schema it never touches. This introspector reads only `schema` (or the session's
 * `current_schema()` when none is given), so others' schemas cannot break it. Every other member
 * is the handle's own.
 */
export function scopeMigratorIntrospection<T>(db: Kysely<T>, schema?: string): Kysely<T> {
  const introspection = createSchemaIntrospector(db as Kysely<unknown>, schema)
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') {
        return introspection
      }
      const value: unknown = Reflect.get(target, property, target)
      // Kysely's methods read private fields, so they must run on the handle, not on the proxy.
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

function createSchemaIntrospector(db: Kysely<unknown>, schema: string | undefined): DatabaseIntrospector {
  const target = schema === undefined ? sql`current_schema()` : sql`${schema}`
  return {
    async getSchemas(): Promise<SchemaMetadata[]> {
      const { rows } = await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace
        where nspname = ${target}`.execute(db)
      return rows
    },
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string; schema: string; isView: boolean }>`select
          c.relname as name, n.nspname as schema, c.relkind = 'v' as "isView"
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${target} and c.relkind in ('r', 'p', 'v')`.execute(db)
      // The migrator looks only at names; columns are not read, so none are listed.
      return rows.map((row) => ({ ...row, columns: [] }))
    },
    async getMetadata() {
      return { tables: await this.getTables() }
    },
  }
}
