import { defaultPayoutSettings, type PayoutSettings } from './payouts/payout-settings.js'
import { generateSecretKeyring, type SecretKeyring } from './secrets/secret-keyring.js'

/**
 * Service settings a composition root chooses (sandbox defaults here; production reads its config
 * file). Each domain adds its own section with a default in {@link createDefaultSettings}.
 */
export type ServiceSettings = {
  /** Public base URL of the server (`http://127.0.0.1:4020`): hosted checkout and page URLs start with it. */
  publicBaseUrl: string
  /** Sandbox: plain-http webhook URLs to loopback are allowed (local development); never in live. */
  allowLoopbackWebhooks: boolean
  /** Fee on x402 income credited to a merchant's balance, in basis points of the amount (half-up). */
  x402FeeBps: number
  /** Payout fees, daily limit and timings (docs/payouts.md). */
  payouts: PayoutSettings
  /** Swaps (docs/swaps.md): the spread in basis points taken off the FX rail's rate, charged as its own leg. */
  swaps: { spreadBps: number }
  /** Deposits (docs/deposits.md): the fee in basis points of the credited amount (half-up, once). */
  deposits: { feeBps: number }
  /** Payment sessions (docs/sessions.md): fees, lifetime and default fee payer. */
  sessions: SessionSettings
  /**
   * Delays in ms before each retry of a webhook delivery, per environment (±20 % jitter each); a
   * delivery gets one attempt more than the list is long (docs/webhooks.md "Retries").
   */
  webhookRetryDelaysMs: { live: number[]; test: number[] }
  /**
   * How long an authenticated API key is remembered in memory, in ms (0: look it up on every request).
   * Also the longest a key revoked by another process keeps working here.
   */
  apiKeyCacheTtlMs: number
  /**
   * Addresses or CIDR ranges of the reverse proxies in front of the server: only from these is
   * `X-Forwarded-For` believed for the hosted pages' per-IP limits (default none: the socket address).
   */
  trustedProxies: string[]
  /**
   * Whether `sk_test_` keys authenticate: true in the sandbox; false in production (`tollgate serve`),
   * where a test key is a 401 `test_key_not_allowed` (docs/security.md "Secrets at rest and environments").
   */
  allowTestKeys: boolean
  /**
   * Keys encrypting webhook secrets at rest (AES-256-GCM): production's `TOLLGATE_SECRET_KEYS`, the
   * sandbox's derived from its master seed, a random one per process by default (docs/security.md).
   */
  secretKeyring: SecretKeyring
}

/** Settings of payment sessions. */
export type SessionSettings = {
  /** Processing fee in basis points of the session's crypto amount (100 = 1 %). */
  processingFeeBps: number
  /** Lifetime of a session from its creation, in seconds. */
  ttlSeconds: number
  /** Who pays fees when a session does not say (`feePayer`). */
  defaultFeePayer: 'merchant' | 'customer'
}

const minute = 60_000
const hour = 60 * minute

/** Live: 8 attempts over about 23 hours. */
export const liveWebhookRetryDelaysMs = [minute, 5 * minute, 30 * minute, hour, 3 * hour, 6 * hour, 12 * hour]
/** Sandbox: the same 8 attempts compressed into about 19 minutes. */
export const sandboxWebhookRetryDelaysMs = [
  5_000,
  15_000,
  30_000,
  minute,
  2 * minute,
  5 * minute,
  10 * minute,
]

/** Sandbox defaults of {@link ServiceSettings}; `overrides` replace single fields. */
export function createDefaultSettings(overrides: Partial<ServiceSettings> = {}): ServiceSettings {
  return {
    publicBaseUrl: 'http://127.0.0.1:4020',
    allowLoopbackWebhooks: true,
    x402FeeBps: 50,
    payouts: defaultPayoutSettings,
    sessions: { processingFeeBps: 100, ttlSeconds: 3600, defaultFeePayer: 'merchant' },
    swaps: { spreadBps: 25 },
    deposits: { feeBps: 50 },
    webhookRetryDelaysMs: { live: liveWebhookRetryDelaysMs, test: sandboxWebhookRetryDelaysMs },
    apiKeyCacheTtlMs: 2_000,
    trustedProxies: [],
    allowTestKeys: true,
    secretKeyring: generateSecretKeyring(),
    ...overrides,
  }
}
