import type { SchemeServer } from '@tollgate/core'
import { createEip3009Server, createPermit2Server } from '@tollgate/evm'
import { createSolanaServer } from '@tollgate/svm'

/** Tollgate's scheme servers: `eip3009`, `permit2` and `solana`. */
export function createDefaultSchemes(): SchemeServer[] {
  return [createEip3009Server(), createPermit2Server(), createSolanaServer()]
}
