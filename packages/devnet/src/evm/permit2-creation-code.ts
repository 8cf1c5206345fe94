import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createDevnetError } from '../errors.js'

let cached: `0x${string}` | undefined

/**
 * Uniswap's Permit2 init code as shipped in npm `@uniswap/uniswapx-sdk` (its typechain factory). Read
 * as text rather than imported, because importing the factory would load ethers for one string.
 * CREATE2-deployed with Uniswap's salt through the deterministic deployer it lands at the canonical address.
 */
export function getPermit2CreationCode(): `0x${string}` {
  if (cached) {
    return cached
  }
  const require = createRequire(import.meta.url)
  // The package's exports map hides dist/, so locate the entry point and walk to the factory from there.
  const entry = require.resolve('@uniswap/uniswapx-sdk')
  const file = join(dirname(entry), 'contracts/factories/Permit2__factory.js')
  const match = /const _bytecode =\s*"(0x[0-9a-fA-F]+)"/.exec(readFileSync(file, 'utf8'))
  if (!match?.[1]) {
    throw createDevnetError(`Permit2 init code not found in ${file}`)
  }
  cached = match[1] as `0x${string}`
  return cached
}
