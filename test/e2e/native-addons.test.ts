import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { IMPORT_AGENT_AND_MIDDLEWARE, loadedAddons, RECOVER_WITH_EVM } from './loaded-addons.js'

// Payers and merchants import @tollgate/agent and @tollgate/middleware; neither may load a native
// addon (docs/packages.md): evm's keccak and secp256k1 load on first use, in the facilitator's
// verify. Each case runs in a fresh process on the sources (the consumer test checks the build).
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const nodeArgs = ['--conditions=tollgate-source', '--import', 'tsx']
// @solana/kit imports `ws`, which loads its optional addons (bufferutil, utf-8-validate) when they
// are installed: here they are (other dependencies of the repository pull them in), in a consumer
// only if it installs them. ws's documented switches keep them out of this probe.
const env = { WS_NO_BUFFER_UTIL: '1', WS_NO_UTF_8_VALIDATE: '1' }

describe('native addons', () => {
  test('default: importing the agent and the middleware loads no native addon', async () => {
    expect(await loadedAddons({ cwd: root, nodeArgs, env, code: IMPORT_AGENT_AND_MIDDLEWARE })).toEqual([])
  })

  test('behavior: recovering a signature with @tollgate/evm loads secp256k1 and keccak (the probe sees addons)', async () => {
    const loaded = await loadedAddons({ cwd: root, nodeArgs, env, code: RECOVER_WITH_EVM })
    expect(loaded.some((file) => file.includes('secp256k1'))).toBe(true)
    expect(loaded.some((file) => file.includes('keccak'))).toBe(true)
  })
})
