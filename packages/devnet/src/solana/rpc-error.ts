/** Standard JSON-RPC 2.0 and Solana RPC error codes used by the devnet server. */
export const RpcErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  sendTransactionPreflightFailure: -32002,
  transactionSignatureVerificationFailure: -32003,
  unsupportedTransactionVersion: -32015,
} as const

/** A JSON-RPC error the server returns as `{ code, message, data? }` (Solana RPC codes and messages). */
export class RpcError extends Error {
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'RpcError'
    this.code = code
    this.data = data
  }
}

/** Builds the standard `-32602 Invalid params` error with the agave wording. */
export function createInvalidParamsError(detail: string): RpcError {
  return new RpcError(
    RpcErrorCode.invalidParams,
    detail.startsWith('Invalid') ? detail : `Invalid params: ${detail}`,
  )
}
