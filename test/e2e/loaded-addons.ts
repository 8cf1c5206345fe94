import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

// Every native addon reaches a process through process.dlopen (Node's `.node` loader calls it), so a
// child that wraps it before running anything else sees each addon the code loads.
const HOOK = `
const loaded = []
const dlopen = process.dlopen
process.dlopen = function (module, filename, ...rest) {
  loaded.push(filename)
  return dlopen.call(this, module, filename, ...rest)
}
process.on('beforeExit', () => console.log(JSON.stringify(loaded)))
`

/** Code that imports the agent and the middleware, which must load no native addon. */
export const IMPORT_AGENT_AND_MIDDLEWARE = `await import('@tollgate/agent'); await import('@tollgate/middleware')`

/** Code that recovers a signature with @tollgate/evm, which loads the secp256k1 and keccak addons. */
export const RECOVER_WITH_EVM = `const { recoverSigner } = await import('@tollgate/evm')
const { privateKeyToAccount } = await import('viem/accounts')
const hash = '0x' + '01'.repeat(32)
const account = privateKeyToAccount('0x' + '11'.repeat(32))
const signer = recoverSigner(Buffer.from(hash.slice(2), 'hex'), await account.sign({ hash }))
if (signer !== account.address.toLowerCase()) throw new Error('recovered ' + signer)`

/**
 * The native addon files (`.node`) that a fresh Node process running the ES module `code` in `cwd`
 * loads, with `nodeArgs` (e.g. the source condition and tsx inside the repository).
 */
export async function loadedAddons(options: {
  cwd: string
  code: string
  nodeArgs?: string[]
  env?: Record<string, string>
}): Promise<string[]> {
  const { stdout } = await run(
    process.execPath,
    [...(options.nodeArgs ?? []), '--input-type=module', '-e', `${HOOK}\n${options.code}`],
    { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: 120_000 },
  )
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as string[]
}
