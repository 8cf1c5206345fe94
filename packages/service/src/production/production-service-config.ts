import type { ComposeServiceConfig } from '../compose/compose-service.js'
import { createDefaultSettings, liveWebhookRetryDelaysMs, sandboxWebhookRetryDelaysMs } from '../settings.js'
import type { ProductionConfig } from './production-config.js'

/**
 * The rails and settings of a production process, from its configuration file and environment:
 * `tollgate serve` and `tollgate worker` both compose the service from this, so the worker's jobs
 * sweep and re-query payouts on the same live networks, keys and rules as the server.
 */
export function productionServiceConfig(
  config: ProductionConfig,
): Required<Pick<ComposeServiceConfig, 'rails' | 'settings'>> {
  return {
    rails: {
      kind: 'production',
      masterSeed: config.masterSeed,
      networks: config.networks,
      fx: config.fx,
      ...(config.operatingKeys ? { operatingKeys: { live: config.operatingKeys } } : {}),
    },
    settings: createDefaultSettings({
      publicBaseUrl: config.publicBaseUrl.replace(/\/+$/, ''),
      allowLoopbackWebhooks: false,
      trustedProxies: config.trustedProxies,
      allowTestKeys: false,
      secretKeyring: config.secretKeyring,
      webhookRetryDelaysMs: {
        live: config.webhooks.retryDelaysMs ?? liveWebhookRetryDelaysMs,
        test: sandboxWebhookRetryDelaysMs,
      },
    }),
  }
}
