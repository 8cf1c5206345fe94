import type { SchemeClient } from '@tollgate/core'
import type { Wallets } from './types.js'

/** Builds the scheme clients for the agent's keys (none yet until the scheme packages are wired). */
export async function createSchemeClients(_wallets: Wallets): Promise<SchemeClient[]> {
  return []
}
