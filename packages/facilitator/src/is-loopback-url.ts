import { isLoopbackHost } from './is-loopback-host.js'

/**
 * Whether `url` names this machine by a loopback host (`localhost`, `127.x.y.z`, `[::1]`).
 *
 * The facilitator gives a node on this machine (the sandbox's anvil, a node beside the facilitator)
 * one verify eth_call in flight instead of two: it answers in well under a millisecond, so
 * concurrent verifies gather into larger batches, with fewer HTTP requests to write, parse and
 * answer on both sides; a remote node keeps two, which hides its round trip (docs/facilitator.md,
 * "One eth_call in flight to a local node").
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    return false
  }
  return isLoopbackHost(host)
}
