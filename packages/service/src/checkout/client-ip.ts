import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'

/**
 * The client's IP address as the socket reports it (no proxy header is trusted: a deployment behind a
 * proxy sets its own limit there), or `unknown` outside a Node server (in-process test requests).
 */
export function getClientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown'
  }
}
