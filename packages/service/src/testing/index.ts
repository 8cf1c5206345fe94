// Test helpers of the service behind its `./testing` export (the pattern every package follows):
// databases (PGlite and PostgreSQL), the HTTP harness, devnet payers and fixtures. The browser
// helpers (`browser.ts`, playwright-core) stay inside the repository.

export type { BaseDevnetFacilitator } from './base-devnet-facilitator.js'
export { startBaseDevnetFacilitator } from './base-devnet-facilitator.js'
export type { DevnetPayer } from './devnet-payer.js'
export { createDevnetPayer } from './devnet-payer.js'
export { describeEachDatabase } from './each-database.js'
export type { FakeSessionRails } from './fake-session-rails.js'
export { createFakeSessionRails } from './fake-session-rails.js'
export { setTestFxRates, testFxRates } from './fx-fixtures.js'
export type { Harness, TestMerchant } from './harness.js'
export { createHarness } from './harness.js'
export { createLedgerTestDeps, createTestMerchants, fundMerchant } from './ledger-fixtures.js'
export type { ManualClock } from './manual-clock.js'
export { createManualClock } from './manual-clock.js'
export type { OpenApiRoute } from './openapi-routes.js'
export { listOpenApiRoutes } from './openapi-routes.js'
export type { PayoutHarness } from './payout-harness.js'
export { createPayoutHarness } from './payout-harness.js'
export type { PayoutTestRails } from './payout-test-rails.js'
export { createPayoutTestRails } from './payout-test-rails.js'
export {
  createSolanaDevnetPayer,
  sendLamports,
  sendSolanaTransaction,
  sendSplTransfer,
} from './send-solana-transfer.js'
export type { SessionProbe } from './session-probe.js'
export { createSessionProbe, waitForChainCursor } from './session-probe.js'
export { fundSolanaTreasury, readSolanaTokenBalance } from './solana-treasury.js'
export { summarizeStatements } from './statement-log.js'
export type { TestDatabase } from './test-databases.js'
export { getTestDatabases, openPostgresTestDatabase } from './test-databases.js'
export type { ReceivedWebhook, WebhookReceiver } from './webhook-receiver.js'
export { startWebhookReceiver } from './webhook-receiver.js'
