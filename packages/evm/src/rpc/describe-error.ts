/** One line for an error: viem's `shortMessage` when it has one, else the message, else `fallback`. */
export function describeError(error: unknown, fallback = String(error)): string {
  if (
    error &&
    typeof error === 'object' &&
    'shortMessage' in error &&
    typeof error.shortMessage === 'string'
  ) {
    return error.shortMessage
  }
  return error instanceof Error ? error.message : fallback
}
