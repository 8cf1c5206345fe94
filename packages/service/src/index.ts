/**
 * The Tollgate merchant service: the hono app of the service API under `/api/v1`, its sandbox
 * composition (`npm start`) and the merchant and API-key functions the CLI uses.
 *
 * @example
 * const sandbox = await startSandbox({ port: 0 })
 * const res = await fetch(`${sandbox.manifest.apiUrl}/balance`, { headers: { 'x-api-key': sandbox.manifest.apiKey } })
 * await sandbox.stop()
 *
 * @module
 */
export type { AppOptions } from './app.js'
export { createApp, defaultBodyLimitBytes, defaultRateLimit } from './app.js'
export type { CreateApiKeyInput, CreatedApiKey } from './auth/create-api-key.js'
export { createApiKey } from './auth/create-api-key.js'
export type { ApiKeySummary } from './auth/list-api-keys.js'
export { listApiKeys } from './auth/list-api-keys.js'
export { revokeApiKey } from './auth/revoke-api-key.js'
export type {
  BaseDeps,
  ComposedService,
  ComposeServiceConfig,
  ServiceRailsConfig,
  ServiceSubscriptions,
} from './compose/compose-service.js'
export { composeService } from './compose/compose-service.js'
export type { Customer, CustomerRow } from './customers/customer.js'
export { toCustomerResponse } from './customers/customer.js'
export type { CustomerDetails } from './customers/upsert-customer.js'
export { upsertCustomer } from './customers/upsert-customer.js'
export type { Database } from './db/database.js'
export { inTransaction } from './db/in-transaction.js'
export { migrateToLatest, migrations } from './db/migrations/index.js'
export type { Notifications, Unlisten } from './db/notifications.js'
export type { OpenDatabaseOptions, OpenedDatabase } from './db/open-database.js'
export { openDatabase } from './db/open-database.js'
export { recordCryptoDeposit } from './deposits/record-crypto-deposit.js'
export { recordFiatDeposit } from './deposits/record-fiat-deposit.js'
export { subscribeDeposits } from './deposits/subscribe-deposits.js'
export type { Clock, Deps, IdGenerator } from './deps.js'
export { createIdGenerator, systemClock } from './deps.js'
export type { ServiceEnv } from './env.js'
export { parseServiceEnv } from './env.js'
export type { FieldIssue, HttpErrorMapping } from './errors.js'
export { serviceErrorTable } from './errors.js'
export type { EmitEventInput } from './events/emit-event.js'
export { emitEvent } from './events/emit-event.js'
export type { EventType } from './events/event-types.js'
export { eventTypes, toCurrentEventType, toWireEventType } from './events/event-types.js'
export type { RefusedAddressClass } from './http/address-policy.js'
export { classifyAddress } from './http/address-policy.js'
export type { ApiKeyAuth, KeyEnvironment, ResponseFormat } from './http/app-env.js'
export { buildOpenApiDocument } from './http/build-openapi-document.js'
export { createLogger } from './http/create-logger.js'
export type {
  OutboundHttp,
  OutboundHttpOptions,
  OutboundRequest,
  OutboundResult,
} from './http/create-outbound-http.js'
export { createOutboundHttp } from './http/create-outbound-http.js'
export type { RateLimiter, RateLimiterOptions } from './http/rate-limit.js'
export { createRateLimiter } from './http/rate-limit.js'
export type {
  ClaimedJob,
  JobContext,
  JobHandler,
  JobOutcome,
  JobRunner,
  JobRunnerOptions,
} from './jobs/create-job-runner.js'
export { createJobRunner } from './jobs/create-job-runner.js'
export type { EnqueueJobInput } from './jobs/enqueue-job.js'
export { enqueueJob, jobsChannel } from './jobs/enqueue-job.js'
export { registerServiceJobs } from './jobs/register-service-jobs.js'
export { type RunWorkerInput, runWorker } from './jobs/run-worker.js'
export { runWorkerCommand, type WorkerCommandInput } from './jobs/run-worker-command.js'
export type { AccountBalance, AccountCounters } from './ledger/account-balance.js'
export { toAccountBalance } from './ledger/account-balance.js'
export type { BalanceTransactionFilters, BalanceTransactionRecord } from './ledger/balance-transactions.js'
export { getBalanceTransaction, listBalanceTransactions } from './ledger/balance-transactions.js'
export type { AccountCode } from './ledger/chart-of-accounts.js'
export { custodyAccount, isAccountCode, merchantAccount } from './ledger/chart-of-accounts.js'
export { checkLedgerInvariants } from './ledger/check-ledger-invariants.js'
export type { CurrencyBalance } from './ledger/get-balances.js'
export { getAccountBalance, getBalances } from './ledger/get-balances.js'
export { getLedgerTransaction } from './ledger/get-ledger-transaction.js'
export type { LedgerCurrency } from './ledger/ledger-currencies.js'
export {
  formatLedgerAmount,
  isLedgerCurrency,
  ledgerCurrencies,
  parseLedgerAmount,
} from './ledger/ledger-currencies.js'
export type {
  LedgerLeg,
  LedgerSource,
  LedgerTransaction,
  LedgerTransactionInfo,
  LedgerTransfer,
  TransferPhase,
} from './ledger/ledger-types.js'
export { ledgerSources } from './ledger/ledger-types.js'
export type { AccountRef } from './ledger/lock-accounts.js'
export { ensureLedgerAccounts } from './ledger/lock-accounts.js'
export type { LedgerDeps, PostTransactionInput } from './ledger/post-transaction.js'
export { createPendingTransfer, postTransaction } from './ledger/post-transaction.js'
export {
  expirePendingTransfers,
  postPendingTransaction,
  postPendingTransfer,
  voidPendingTransaction,
  voidPendingTransfer,
} from './ledger/resolve-pending.js'
export type { Merchant } from './merchants/create-merchant.js'
export { createMerchant } from './merchants/create-merchant.js'
export { listMerchants } from './merchants/list-merchants.js'
export { setPayoutDailyLimit, verifyMerchant } from './merchants/verify-merchant.js'
export { createPaymentSession } from './payments/create-payment-session.js'
export { createSessionAddress } from './payments/create-session-address.js'
export { expirePaymentSession, expireSessionJob } from './payments/expire-payment-session.js'
export { createSessionTransferHandler } from './payments/handle-session-transfer.js'
export type { RegisterJob } from './payments/register-session-handlers.js'
export { registerSessionHandlers } from './payments/register-session-handlers.js'
export type { CrossBorderQuote } from './payouts/create-cross-border-quote.js'
export { createCrossBorderQuote } from './payouts/create-cross-border-quote.js'
export type { CreatePayoutInput, PayoutRequest } from './payouts/create-payout.js'
export { createPayout } from './payouts/create-payout.js'
export type { PayoutFilters } from './payouts/list-payouts.js'
export { findPayout, listPayouts } from './payouts/list-payouts.js'
export type { Conversion, Payout, PayoutRow } from './payouts/payout.js'
export { toPayoutResponse } from './payouts/payout.js'
export type { ReconcilePayoutPayload } from './payouts/payout-jobs.js'
export { reconcilePayoutJob } from './payouts/payout-jobs.js'
export type { PayoutFeeTable, PayoutSettings } from './payouts/payout-settings.js'
export { defaultPayoutSettings } from './payouts/payout-settings.js'
export type { PayoutOutcome } from './payouts/settle-payout.js'
export { settlePayout } from './payouts/settle-payout.js'
export { reconcilePayout, submitPayout, subscribePayoutRails } from './payouts/submit-payout.js'
export type { ProductionConfig } from './production/production-config.js'
export { ProductionConfigFile, parseProductionConfig } from './production/production-config.js'
export { productionServiceConfig } from './production/production-service-config.js'
export { runServeCommand } from './production/run-serve-command.js'
export type { ProductionServer } from './production/start-production.js'
export { startProduction } from './production/start-production.js'
export type { ChainRegistryOptions, RailsNetwork } from './rails/chains/create-chain-registry.js'
export { createChainRegistry } from './rails/chains/create-chain-registry.js'
export type { EvmPollResult, EvmWatcher, EvmWatcherOptions } from './rails/chains/evm-watcher.js'
export { createEvmWatcher } from './rails/chains/evm-watcher.js'
export type { IncomingHub } from './rails/chains/incoming-store.js'
export { createIncomingHub } from './rails/chains/incoming-store.js'
export type { JsonRpc } from './rails/chains/json-rpc.js'
export { createJsonRpc } from './rails/chains/json-rpc.js'
export type { NetworkSignal } from './rails/chains/look-schedule.js'
export { createNetworkSignal } from './rails/chains/look-schedule.js'
export type { SolanaPollResult, SolanaWatcher, SolanaWatcherOptions } from './rails/chains/solana-watcher.js'
export { createSolanaWatcher } from './rails/chains/solana-watcher.js'
export type { RailsOptions } from './rails/create-rails.js'
export { createRails } from './rails/create-rails.js'
export { registerFiatJobs, runFiatCallbackJob } from './rails/fiat/run-fiat-callback-job.js'
export type { SandboxFiatOptions } from './rails/fiat/sandbox-fiat-transfers.js'
export { convertAmount } from './rails/fx/convert-amount.js'
export type { SplitFeeInput } from './rails/fx/split-fee.js'
export { splitFee } from './rails/fx/split-fee.js'
export type * from './rails/types.js'
export type { CreateRecipientInput } from './recipients/create-recipient.js'
export { createRecipient } from './recipients/create-recipient.js'
export { findRecipient } from './recipients/get-recipient.js'
export type { RecipientFilters, RecipientScope } from './recipients/list-recipients.js'
export { listRecipients } from './recipients/list-recipients.js'
export { matchesAccountName } from './recipients/match-account-name.js'
export type { Recipient, RecipientDetailsInput, RecipientRow } from './recipients/recipient.js'
export { maskAccountNumber, recipientTypes, toRecipientResponse } from './recipients/recipient.js'
export type { ResolvedRecipient } from './recipients/resolve-recipient.js'
export { resolveRecipient } from './recipients/resolve-recipient.js'
export type { RecipientChanges } from './recipients/update-recipient.js'
export { deleteRecipient, updateRecipient } from './recipients/update-recipient.js'
export type { AdminCommand, CliIo } from './run-cli.js'
export { runAdminCommand, runListenCommand } from './run-cli.js'
export { fundBalance, fundSandboxMerchant } from './sandbox/fund-sandbox-merchant.js'
export type { RunSandboxCommandOptions } from './sandbox/run-sandbox-command.js'
export { runSandboxCommand } from './sandbox/run-sandbox-command.js'
export type { SandboxManifest } from './sandbox/sandbox-manifest.js'
export { sandboxPayoutAccounts, sandboxPayoutHolder } from './sandbox/sandbox-payout-accounts.js'
export type { Sandbox, SandboxContext, SandboxMount, StartSandboxOptions } from './sandbox/start-sandbox.js'
export { startSandbox } from './sandbox/start-sandbox.js'
export { loadSecretKeyring } from './secrets/load-secret-keyring.js'
export { resealStoredSecrets } from './secrets/reseal-stored-secrets.js'
export { getSealingKeyId, openSecret, sealSecret } from './secrets/seal-secret.js'
export type { SecretKeyring } from './secrets/secret-keyring.js'
export {
  deriveSandboxSecretKeyring,
  generateSecretKeyring,
  parseSecretKeys,
} from './secrets/secret-keyring.js'
export type { ServiceSettings } from './settings.js'
export { createDefaultSettings } from './settings.js'
export { createSwapQuotation, getSwapQuotation, swapQuotationTtlMs } from './swaps/create-swap-quotation.js'
export type { ExecuteSwapInput } from './swaps/execute-swap.js'
export { executeSwap } from './swaps/execute-swap.js'
export type { SwapPrice } from './swaps/price-swap.js'
export { priceSwap } from './swaps/price-swap.js'
export { assertWebhookUrl } from './webhooks/assert-webhook-url.js'
export type { WebhookDeps } from './webhooks/deliver-webhook.js'
export { registerWebhookJobs } from './webhooks/register-webhook-jobs.js'
export { signWebhook } from './webhooks/sign-webhook.js'
export type { WebhookEndpoint, WebhookEndpointRow } from './webhooks/webhook-endpoints.js'
export { createWebhookEndpoint } from './webhooks/webhook-endpoints.js'
export type { WebhookMetrics } from './webhooks/webhook-metrics.js'
export { createWebhookMetrics } from './webhooks/webhook-metrics.js'
