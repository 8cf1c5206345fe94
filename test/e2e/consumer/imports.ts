// Copied to the consumer project's src/ by test/e2e/consumer.test.ts and type-checked there against
// the installed tarballs: every package's main entry, with the options of a strict consumer.
import { wrapFetch } from '@tollgate/agent'
import { createAssetRegistry, parseDollarPrice } from '@tollgate/core'
import { createEip3009Server, recoverSigner } from '@tollgate/evm'
import { createFacilitator } from '@tollgate/facilitator'
import { createPaymentHandler, paymentRequired } from '@tollgate/middleware'
import { createSolanaServer } from '@tollgate/svm'

export const used = [
  wrapFetch,
  createAssetRegistry,
  parseDollarPrice,
  createEip3009Server,
  recoverSigner,
  createFacilitator,
  createPaymentHandler,
  paymentRequired,
  createSolanaServer,
]
