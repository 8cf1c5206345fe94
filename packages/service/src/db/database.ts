import type { CustomersTables } from './schema/customers.js'
import type { DepositsSwapsTables } from './schema/deposits-swaps.js'
import type { JobsEventsTables } from './schema/jobs-events.js'
import type { LedgerTables } from './schema/ledger.js'
import type { MerchantsTables } from './schema/merchants.js'
import type { PaymentPagesTables } from './schema/payment-pages.js'
import type { PaymentSessionsTables } from './schema/payment-sessions.js'
import type { PayoutsTables } from './schema/payouts.js'
import type { RailsChainTables } from './schema/rails-chain.js'
import type { RailsFiatTables } from './schema/rails-fiat.js'
import type { WebhooksTables } from './schema/webhooks.js'
import type { X402Tables } from './schema/x402.js'

/** The service database's tables: the union of every migration's table types. */
export interface Database
  extends MerchantsTables,
    LedgerTables,
    CustomersTables,
    JobsEventsTables,
    DepositsSwapsTables,
    PaymentSessionsTables,
    PayoutsTables,
    RailsChainTables,
    RailsFiatTables,
    WebhooksTables,
    X402Tables,
    PaymentPagesTables {}
