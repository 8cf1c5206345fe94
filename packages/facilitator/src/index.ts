/**
 * Tollgate's x402 facilitator: a library (`createFacilitator`) that routes v1 and v2 requests to
 * the `eip3009`, `permit2` and `solana` schemes and settles every payment exactly once through a
 * durable settlement store; a hono app (`POST /verify`, `POST /settle`, `GET /supported`,
 * `/health`, `/metrics`); and the `tollgate-facilitator` CLI.
 *
 * @example
 * import { createFacilitator, createFacilitatorApp, createPostgresSettlementStore,
 *   openSettlementDatabase } from '@tollgate/facilitator'
 * const db = await openSettlementDatabase({ dataDir: '.tollgate/facilitator' })
 * const facilitator = createFacilitator({ schemes, store: await createPostgresSettlementStore({ db }) })
 * root.route('/facilitator', createFacilitatorApp(facilitator, { authToken }))
 *
 * @module
 */

export type { CallOptions, Facilitator, FacilitatorDeps, FacilitatorHealth } from './create-facilitator.js'
export { createFacilitator } from './create-facilitator.js'
export type { FacilitatorAppOptions } from './create-facilitator-app.js'
export { createFacilitatorApp } from './create-facilitator-app.js'
export type { NodeRequestListener } from './create-facilitator-listener.js'
export { createFacilitatorListener } from './create-facilitator-listener.js'
export type {
  GuardRefusal,
  SettleGuard,
  SettleLimits,
  WindowLimit,
} from './create-settle-guard.js'
export { createSettleGuard, NO_SETTLE_LIMITS, toMinAmountKey } from './create-settle-guard.js'
export { drainUnreadBody } from './drain-unread-body.js'
export { resolveSettleLimits, SettleLimitsConfig } from './facilitator-config.js'
export type {
  FacilitatorMetrics,
  FacilitatorMetricsOptions,
  MetricSources,
  OutcomeLabels,
  SignerBalance,
} from './facilitator-metrics.js'
export { createFacilitatorMetrics } from './facilitator-metrics.js'
export { getSettlementFingerprint } from './get-settlement-fingerprint.js'
export { getSupported } from './get-supported.js'
export { isLoopbackHost } from './is-loopback-host.js'
export { isLoopbackUrl } from './is-loopback-url.js'
export type { DataDirectoryLock } from './lock-data-directory.js'
export { DATA_DIRECTORY_LOCK_FILE, lockDataDirectory } from './lock-data-directory.js'
export type { Logger } from './logger.js'
export { silentLogger } from './logger.js'
export { createMemorySettlementStore } from './memory-settlement-store.js'
export type { OpenSettlementDatabaseOptions } from './open-settlement-database.js'
export { openSettlementDatabase } from './open-settlement-database.js'
export { parseFacilitatorRequest } from './parse-facilitator-request.js'
export type { PreparedStatementsOptions } from './pg-prepared-statements.js'
export { withPreparedStatements } from './pg-prepared-statements.js'
export type { PgliteSession } from './pglite-dialect.js'
export { createMutex, createPgliteDialect } from './pglite-dialect.js'
export type {
  PostgresSettlementStoreOptions,
  SettlementDatabase,
  SettlementTable,
} from './postgres-settlement-store.js'
export { createPostgresSettlementStore } from './postgres-settlement-store.js'
export { readBodyText } from './read-body-text.js'
export type { ReconcileSummary } from './reconcile-settlements.js'
export type { RouteOptions } from './route-facilitator-request.js'
export { readJsonConfigFile, runFacilitatorCommand } from './run-facilitator-command.js'
export { scopeMigratorIntrospection } from './scope-migrator-introspection.js'
export { migrateSettlementStore, SETTLEMENT_TABLE } from './settlement-migrations.js'
export type {
  ClaimSettlementParameters,
  ClaimSettlementResult,
  CompleteSettlementParameters,
  SettlementRecord,
  SettlementState,
  SettlementStateCounts,
  SettlementStore,
} from './settlement-store.js'
export type { ReconcileLoopOptions } from './start-reconcile-loop.js'
export { startReconcileLoop } from './start-reconcile-loop.js'
