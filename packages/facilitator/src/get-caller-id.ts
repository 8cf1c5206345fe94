import { createHash } from 'node:crypto'

/**
 * Who calls the facilitator over HTTP, for the per-caller settle limit: the bearer token (as a
 * digest prefix, never the token) when one is configured, since every authorized request presents
 * it; else the client's address. `undefined` when neither is known.
 */
export function getCallerId(
  authToken: string | undefined,
  remoteAddress: string | undefined,
): string | undefined {
  if (authToken !== undefined) {
    return `token:${createHash('sha256').update(authToken).digest('hex').slice(0, 16)}`
  }
  return remoteAddress === undefined ? undefined : `client:${remoteAddress}`
}
