// Where the Solidity fixtures live, which contracts get artifacts, and the hash that ties an
// artifact to the sources it was compiled from (compile.ts writes it, artifacts.test.ts checks it).
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** contracts-fixtures/ on disk. */
export const FIXTURES_DIR = fileURLToPath(new URL('.', import.meta.url))
/** Committed compiled artifacts, one `<Name>.json` per contract. */
export const ARTIFACTS_DIR = join(FIXTURES_DIR, 'artifacts')
/** The typed ABI and bytecode modules generated from the artifacts for `@tollgate/devnet`. */
export const GENERATED_ABIS_FILE = join(FIXTURES_DIR, '../packages/devnet/src/evm/abis.ts')
export const GENERATED_BYTECODES_FILE = join(FIXTURES_DIR, '../packages/devnet/src/evm/bytecodes.ts')

/**
 * Contracts that get an artifact, with the source unit that defines them. `placed` contracts are put
 * on the devnet with `anvil_setCode`, so their runtime code must not contain immutables.
 */
export const FIXTURE_CONTRACTS = [
  { name: 'UsdcLike', source: 'src/UsdcLike.sol', placed: true },
  { name: 'UsdtLike', source: 'src/UsdtLike.sol', placed: true },
  { name: 'X402ExactPermit2Proxy', source: 'src/X402ExactPermit2Proxy.sol', placed: true },
  { name: 'Multicall3', source: 'src/Multicall3.sol', placed: true },
  { name: 'FiatTokenLike', source: 'src/FiatTokenLike.sol', placed: true },
  { name: 'Erc1271Wallet', source: 'src/Erc1271Wallet.sol', placed: false },
  { name: 'IPermit2', source: 'src/interfaces/IPermit2.sol', placed: false },
] as const

/** Name of a contract that has an artifact. */
export type FixtureContractName = (typeof FIXTURE_CONTRACTS)[number]['name']

/** solc settings; part of the source hash, since changing them changes the bytecode. */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
} as const

/** What compile.ts writes for each contract. `bytecode` is creation code, `deployedBytecode` runtime code. */
export type FixtureArtifact = {
  contractName: string
  abi: unknown[]
  bytecode: `0x${string}`
  deployedBytecode: `0x${string}`
  sourceHash: string
  compiler: { version: string; settings: typeof SOLC_SETTINGS; openzeppelin: string }
}

const require = createRequire(import.meta.url)

/** Version of the installed `@openzeppelin/contracts` (the sources we import from it). */
export function getOpenZeppelinVersion(): string {
  return (require('@openzeppelin/contracts/package.json') as { version: string }).version
}

/** Version of the installed solc-js package. */
export function getSolcPackageVersion(): string {
  return (require('solc/package.json') as { version: string }).version
}

/** The project's own Solidity sources, keyed by path relative to contracts-fixtures/ (sorted). */
export function readFixtureSources(): Record<string, string> {
  const files = readdirSync(join(FIXTURES_DIR, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.sol'))
    .map((file) => relative(FIXTURES_DIR, join(FIXTURES_DIR, 'src', file)).replaceAll('\\', '/'))
    .sort()
  return Object.fromEntries(files.map((file) => [file, readFileSync(join(FIXTURES_DIR, file), 'utf8')]))
}

/** sha256 (hex) over every source path and text, the OpenZeppelin and solc versions and the settings. */
export function computeSourceHash(sources: Record<string, string> = readFixtureSources()): string {
  const hash = createHash('sha256')
  for (const [path, text] of Object.entries(sources).sort(([a], [b]) => (a < b ? -1 : 1))) {
    hash.update(`${path}\0${text}\0`)
  }
  hash.update(`@openzeppelin/contracts@${getOpenZeppelinVersion()}\0`)
  hash.update(`solc@${getSolcPackageVersion()}\0${JSON.stringify(SOLC_SETTINGS)}`)
  return hash.digest('hex')
}

/** Reads the committed artifact of `name`. */
export function readFixtureArtifact(name: FixtureContractName): FixtureArtifact {
  return JSON.parse(readFileSync(join(ARTIFACTS_DIR, `${name}.json`), 'utf8')) as FixtureArtifact
}
