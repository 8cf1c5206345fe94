import { isSolanaError } from '@solana/kit'

/**
 * Whether `error` is a JSON-RPC error the node answered (invalid params, preflight failure,
 * signature verification failure …): a definite refusal of the request. Anything else (HTTP,
 * timeouts, resets) leaves open whether the node acted on it.
 */
export function isJsonRpcRefusal(error: unknown): boolean {
  return isSolanaError(error) && error.context.__code <= -32000 && error.context.__code >= -32768
}

/** A transaction error (`"BlockhashNotFound"`, `{ InstructionError: [2, …] }`) as compact text. */
export function describeTransactionError(err: unknown): string {
  return typeof err === 'string' ? err : JSON.stringify(err, (_k, v) => (typeof v === 'bigint' ? `${v}` : v))
}

/** A short message for an error thrown by an RPC call. */
export function describeRpcError(error: unknown): string {
  if (isSolanaError(error)) {
    const server = (error.context as { __serverMessage?: unknown }).__serverMessage
    return typeof server === 'string' ? server : error.message
  }
  return error instanceof Error ? error.message : String(error)
}
