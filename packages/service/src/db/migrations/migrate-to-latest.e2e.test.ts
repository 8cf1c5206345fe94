import { describe, expect, test } from 'vitest'
import { getTestDatabases } from '../../testing/test-databases.js'

// Test files run side by side on one PostgreSQL server, each in its own schema that it drops at the
// end. Kysely's own introspector lists every schema's tables and resolves each by name, so a
// migration could fail on another file's schema being dropped (error 3F000); ours must read only
// its own schema's catalog.
const seen: string[] = []
describe.each(getTestDatabases({ onQuery: (sql) => seen.push(sql) }))(
  'migrateToLatest [$name]',
  (database) => {
    test('behavior: the migrator reads no other schema while it migrates a new database', async () => {
      seen.length = 0
      const opened = await database.open()
      try {
        const catalogReads = seen.filter((sql) => sql.includes('pg_namespace'))
        expect(catalogReads.length).toBeGreaterThan(0)
        for (const sql of catalogReads) {
          expect(sql).not.toContain('pg_get_serial_sequence')
          expect(sql).toMatch(/nspname = (\$\d+|current_schema\(\))/)
        }
      } finally {
        await opened.close()
      }
    })
  },
)
