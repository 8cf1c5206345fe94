#!/usr/bin/env node
// The package's "#cli" import: dist/cli.js (built) for plain node; src/cli.ts under
// `node --conditions=tollgate-source --import tsx` inside the monorepo (docs/packages.md).
await import('#cli')
