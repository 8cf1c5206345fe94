// `npm run contracts:compile`: compile the Solidity fixtures, write contracts-fixtures/artifacts/<Name>.json
// (committed, so tests never wait for solc) and regenerate the typed modules in packages/devnet/src/evm/.
// `npm run contracts:compile -- --check` writes nothing and exits 1 if recompiling would change an artifact.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { compileFixtures, renderAbisModule, renderBytecodesModule } from './compile-fixtures.js'
import {
  ARTIFACTS_DIR,
  FIXTURE_CONTRACTS,
  GENERATED_ABIS_FILE,
  GENERATED_BYTECODES_FILE,
  readFixtureArtifact,
} from './fixture-sources.js'

const started = performance.now()
const artifacts = compileFixtures()
const elapsed = () => `${Math.round(performance.now() - started)} ms`

if (process.argv.includes('--check')) {
  const stale = FIXTURE_CONTRACTS.map((c) => c.name).filter(
    (name) => !isDeepStrictEqual(artifacts[name], readFixtureArtifact(name)),
  )
  if (stale.length > 0) {
    console.error(`stale artifacts: ${stale.join(', ')}; run npm run contracts:compile`)
    process.exit(1)
  }
  console.log(`all ${Object.keys(artifacts).length} artifacts reproduce from the sources (${elapsed()})`)
} else {
  for (const artifact of Object.values(artifacts)) {
    writeFileSync(
      join(ARTIFACTS_DIR, `${artifact.contractName}.json`),
      `${JSON.stringify(artifact, null, 2)}\n`,
    )
  }
  writeFileSync(GENERATED_ABIS_FILE, renderAbisModule(artifacts))
  writeFileSync(GENERATED_BYTECODES_FILE, renderBytecodesModule(artifacts))
  // The generated modules are checked in and linted like the rest: format them the way Biome wants.
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
  execFileSync(
    process.execPath,
    [biome, 'format', '--write', GENERATED_ABIS_FILE, GENERATED_BYTECODES_FILE],
    {
      stdio: 'inherit',
    },
  )
  console.log(`compiled ${Object.keys(artifacts).length} contracts in ${elapsed()}`)
}
