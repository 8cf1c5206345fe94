import { formatAtomicAmount } from '@tollgate/core'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { SettlementStateCounts } from './settlement-store.js'

/** A fee payer's native balance (relayer ETH, Solana fee payer SOL), in atomic units. */
export type SignerBalance = {
  network: string
  address: string
  /** Native currency symbol, e.g. `ETH`, `SOL`. */
  symbol: string
  /** Balance in atomic units (wei, lamports). */
  balance: bigint
  decimals: number
}

/** Labels of one verify or settle outcome. `reason` is the x402 reason without its `: detail` tail. */
export type OutcomeLabels = { network: string; scheme: string; outcome: string; reason: string }

/** Where the gauges read their values at scrape time. */
export type MetricSources = {
  getBalances?: () => Promise<SignerBalance[]>
  getSettlementCounts?: () => Promise<SettlementStateCounts>
}

/** Prometheus metrics of one facilitator (prom-client). */
export type FacilitatorMetrics = {
  readonly registry: Registry
  /** Counts a verify outcome and its latency in seconds. */
  observeVerify(labels: OutcomeLabels, seconds: number): void
  /** Counts a settle outcome and its latency in seconds. */
  observeSettle(labels: OutcomeLabels, seconds: number): void
  /** Sets the callbacks the balance and settlement gauges read at scrape time. */
  track(sources: MetricSources): void
}

/** Options of {@link createFacilitatorMetrics}. */
export type FacilitatorMetricsOptions = {
  /** Registry to register into (default: a new one, so several facilitators never clash). */
  registry?: Registry
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

/**
 * Creates the facilitator's metrics: `tollgate_facilitator_{verify,settle}_total` by network,
 * scheme, outcome and reason; `…_{verify,settle}_duration_seconds` histograms;
 * `tollgate_facilitator_signer_balance` (whole native units) and
 * `tollgate_facilitator_settlements` by store state (e.g. `pending`), read at scrape time.
 */
export function createFacilitatorMetrics(options: FacilitatorMetricsOptions = {}): FacilitatorMetrics {
  const registry = options.registry ?? new Registry()
  const registers = [registry]
  const labelNames = ['network', 'scheme', 'outcome', 'reason'] as const
  const timingLabels = ['network', 'scheme'] as const
  const verifyTotal = new Counter({
    name: 'tollgate_facilitator_verify_total',
    help: 'Verify requests by outcome (valid, invalid, error)',
    labelNames,
    registers,
  })
  const settleTotal = new Counter({
    name: 'tollgate_facilitator_settle_total',
    help: 'Settle requests by outcome (success, failure, pending, error)',
    labelNames,
    registers,
  })
  const verifySeconds = new Histogram({
    name: 'tollgate_facilitator_verify_duration_seconds',
    help: 'Verify latency',
    labelNames: timingLabels,
    buckets: LATENCY_BUCKETS,
    registers,
  })
  const settleSeconds = new Histogram({
    name: 'tollgate_facilitator_settle_duration_seconds',
    help: 'Settle latency (includes waiting for another caller of the same payment)',
    labelNames: timingLabels,
    buckets: LATENCY_BUCKETS,
    registers,
  })
  let sources: MetricSources = {}
  new Gauge({
    name: 'tollgate_facilitator_signer_balance',
    help: 'Native balance of each relayer / fee payer, in whole units (ETH, SOL)',
    labelNames: ['network', 'address', 'symbol'] as const,
    registers,
    async collect() {
      this.reset()
      // An unreachable RPC leaves the gauge empty (alert on absence) rather than failing the scrape.
      const balances = await sources.getBalances?.().catch(() => [])
      for (const b of balances ?? []) {
        const value = Number(formatAtomicAmount(b.balance, b.decimals))
        this.set({ network: b.network, address: b.address, symbol: b.symbol }, value)
      }
    },
  })
  new Gauge({
    name: 'tollgate_facilitator_settlements',
    help: 'Settlement store rows by state (pending = broadcast, outcome not yet known)',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const counts = await sources.getSettlementCounts?.()
      for (const [state, count] of Object.entries(counts ?? {})) {
        this.set({ state }, count)
      }
    },
  })
  return {
    registry,
    observeVerify(labels, seconds) {
      verifyTotal.inc(labels)
      verifySeconds.observe({ network: labels.network, scheme: labels.scheme }, seconds)
    },
    observeSettle(labels, seconds) {
      settleTotal.inc(labels)
      settleSeconds.observe({ network: labels.network, scheme: labels.scheme }, seconds)
    },
    track(next) {
      sources = next
    },
  }
}
