import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

// The packages' `tollgate-source` export condition (docs/packages.md): tests import the workspace
// packages' TypeScript sources, so they run without `npm run build`. The rest is Vite's default
// server conditions (setting `conditions` replaces them).
const conditions = ['tollgate-source', 'module', 'node', 'development|production']

// Two projects (docs/conventions.md, 'Code'): `unit` is pure (no chain, no database, no sockets) and fast;
// `e2e` starts anvil, the LiteSVM RPC server, PGlite and (when TEST_DATABASE_URL is set)
// talks to a real PostgreSQL server.
export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // One test file per core. Vitest's default leaves a core free, which on a 2-core machine runs
    // the files one at a time although most e2e files spend their time waiting on a chain, a socket
    // or a database. Each file has its own chains, ports and PostgreSQL schema, and the migrations
    // read only their own schema's catalog (scopeMigratorIntrospection), so files never see each
    // other's state.
    maxWorkers: Math.max(availableParallelism(), 2),
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
