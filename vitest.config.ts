import { defineConfig } from 'vitest/config'

// Two projects (docs/conventions.md, 'Code'): `unit` is pure (no chain, no database, no sockets) and fast;
// `e2e` starts anvil, the LiteSVM RPC server, PGlite and (when TEST_DATABASE_URL is set)
// talks to a real PostgreSQL server.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'contracts-fixtures/**/*.test.ts'],
          exclude: ['**/*.e2e.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: [
            'packages/*/src/**/*.e2e.test.ts',
            'packages/*/test/**/*.test.ts',
            'test/e2e/**/*.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
