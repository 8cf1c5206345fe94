/**
 * What a failed `eth_sendRawTransaction` means for the relayer:
 * - `already_known`: this exact transaction is in the node's pool (a retry) → it was sent,
 * - `nonce_too_low` / `underpriced`: the nonce is taken (another sender, or a pool entry) → resync, re-sign,
 * - `insufficient_funds`: this fee payer cannot pay the gas → try another key,
 * - `ambiguous`: transport failure or timeout; the node may have the transaction → treat as sent,
 * - `rejected`: the node refused it for good (nothing was sent).
 */
export type SendErrorKind =
  | 'already_known'
  | 'nonce_too_low'
  | 'underpriced'
  | 'insufficient_funds'
  | 'ambiguous'
  | 'rejected'

// geth, reth, anvil and erigon phrasings.
const PATTERNS: ReadonlyArray<[RegExp, SendErrorKind]> = [
  [
    /already known|already imported|known transaction|AlreadyKnown|already in (the )?(mem)?pool/i,
    'already_known',
  ],
  [
    /nonce too low|nonce.*(lower|less) than|NonceTooLow|invalid nonce|nonce has already been used/i,
    'nonce_too_low',
  ],
  [/replacement transaction underpriced|ReplacementUnderpriced|underpriced/i, 'underpriced'],
  [/insufficient funds|InsufficientFunds|lack of funds/i, 'insufficient_funds'],
]

const TRANSPORT_ERRORS = new Set([
  'HttpRequestError',
  'TimeoutError',
  'WebSocketRequestError',
  'SocketClosedError',
])

/** Classifies an error thrown by `sendRawTransaction` (viem errors carry the node's message in their cause chain). */
export function classifySendError(error: unknown): SendErrorKind {
  const text = collectMessages(error)
  for (const [pattern, kind] of PATTERNS) {
    if (pattern.test(text)) {
      return kind
    }
  }
  return hasTransportError(error) ? 'ambiguous' : 'rejected'
}

function collectMessages(error: unknown): string {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current && depth < 8; depth++) {
    const e = current as { message?: unknown; details?: unknown; shortMessage?: unknown; cause?: unknown }
    for (const part of [e.message, e.details, e.shortMessage]) {
      if (typeof part === 'string') {
        parts.push(part)
      }
    }
    current = e.cause
  }
  return parts.join(' | ')
}

function hasTransportError(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; current && depth < 8; depth++) {
    const e = current as { name?: unknown; cause?: unknown }
    if (typeof e.name === 'string' && TRANSPORT_ERRORS.has(e.name)) {
      return true
    }
    current = e.cause
  }
  return false
}
