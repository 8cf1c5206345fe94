// @solana/kit's declarations use ErrorOptions (ES2022); this keeps them valid for a consumer on an
// older `lib` (docs/packages.md). Node 20 has it at run time.
/// <reference lib="es2022.error" preserve="true" />
/**
 * Payer side of x402: `wrapFetch` pays 402 responses from the agent's wallets (EVM key, smart
 * account such as a Safe, Solana keypair) under a spend policy, for v1 and v2 servers, and exposes the receipt; refusals are
 * typed `AppError`s. Also the `tollgate pay <url>` CLI.
 *
 * @example
 * import { getPaymentReceipt, wrapFetch } from '@tollgate/agent'
 * const pay = wrapFetch(fetch, {
 *   wallets: { evm: '0x…private key' },
 *   policy: { maxPerPayment: '$0.05', maxPerDay: '$5', allowedHosts: ['api.example.com'] },
 * })
 * const response = await pay('https://api.example.com/weather')
 * console.log(await response.json(), getPaymentReceipt(response)?.transaction)
 *
 * @module
 */
import './errors.js'

export type { Candidate } from './choose-requirement.js'
export { formatUsd, getPayableCandidates, isHostAllowed, toUsd, USD_DECIMALS } from './choose-requirement.js'
export { createPaymentHeader } from './create-payment-header.js'
export { createRpcBalanceReader } from './create-rpc-balance-reader.js'
export type { CreateSafeAccountParameters } from './create-safe-account.js'
export { createSafeAccount } from './create-safe-account.js'
export { createSchemeClients, isEvmKey, toEvmAccount, toSolanaSigner } from './create-scheme-clients.js'
export type { EnsurePermit2ApprovalParameters } from './ensure-permit2-approval.js'
export { createPermit2Approver, ensurePermit2Approval } from './ensure-permit2-approval.js'
export type { PolicyRule } from './errors.js'
export type { Offer } from './parse-payment-required.js'
export { parsePaymentRequired } from './parse-payment-required.js'
export type { CliIo, CliIo as AgentCliIo } from './run-cli.js'
export { HELP as agentCliHelp, runCli } from './run-cli.js'
export type { SpendEntry, SpendLedger } from './spend-ledger.js'
export { createMemorySpendLedger } from './spend-ledger.js'
export type {
  BalanceReader,
  PaymentQuote,
  PaymentRecord,
  Permit2Approver,
  SpendPolicy,
  Wallets,
  WrapFetchOptions,
} from './types.js'
export type { FetchLike } from './wrap-fetch.js'
export { getPaymentReceipt, getPaymentRecord, wrapFetch } from './wrap-fetch.js'
