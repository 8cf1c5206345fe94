/**
 * The lower-cased `from` address an EVM payload's authorization names (unchecked: the signature is
 * verified later), or `undefined` when it names none.
 */
export function readClaimedPayer(authorization: unknown): string | undefined {
  if (typeof authorization !== 'object' || authorization === null) {
    return undefined
  }
  const from = (authorization as { from?: unknown }).from
  return typeof from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : undefined
}
