import { dirname, join } from 'node:path'
import { readOrCreateMasterSeed } from '../sandbox/read-or-create-master-seed.js'
import { deriveSandboxSecretKeyring, parseSecretKeys, type SecretKeyring } from './secret-keyring.js'

/**
 * The keyring of a process beside the sandbox or production (`tollgate worker`): `TOLLGATE_SECRET_KEYS`
 * when set, else the sandbox's, derived from the master seed beside `dataDir` (as `npm start` does).
 */
export async function loadSecretKeyring(input: {
  secretKeys?: string | undefined
  dataDir: string
}): Promise<SecretKeyring> {
  if (input.secretKeys !== undefined && input.secretKeys.trim() !== '') {
    return parseSecretKeys(input.secretKeys)
  }
  return deriveSandboxSecretKeyring(await readOrCreateMasterSeed(join(dirname(input.dataDir), 'master-seed')))
}
