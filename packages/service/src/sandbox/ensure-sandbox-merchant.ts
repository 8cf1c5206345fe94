import { authenticateApiKey } from '../auth/authenticate-api-key.js'
import { createApiKey } from '../auth/create-api-key.js'
import type { Deps } from '../deps.js'
import { createMerchant } from '../merchants/create-merchant.js'
import { listMerchants } from '../merchants/list-merchants.js'
import { verifyMerchant } from '../merchants/verify-merchant.js'
import { sandboxPayoutHolder } from './sandbox-payout-accounts.js'

/** Name of the merchant the sandbox creates at first start and reuses afterwards. */
export const sandboxMerchantName = 'Sandbox merchant'

/** The sandbox merchant and its `sk_test_` key; `created` is true on the first start (so it gets funded). */
export type SandboxMerchant = { merchantId: string; apiKey: string; created: boolean }

/**
 * The sandbox merchant is a verified business (cross-border payouts work out of the box) whose
 * business name holds the sandbox's payout accounts (NGN recipients match it).
 * Reuses the key of the previous manifest when it still authenticates as a test key; otherwise
 * reuses the sandbox merchant with a new key, or creates both.
 */
export async function ensureSandboxMerchant(
  deps: Pick<Deps, 'db' | 'ids' | 'clock'>,
  input: { previousKey?: string | undefined },
): Promise<SandboxMerchant> {
  if (input.previousKey) {
    const auth = await authenticateApiKey(deps, input.previousKey)
    if (auth?.environment === 'test') {
      await prepareSandboxMerchant(deps, auth.merchantId)
      return { merchantId: auth.merchantId, apiKey: input.previousKey, created: false }
    }
  }
  const [existing] = await listMerchants(deps, { name: sandboxMerchantName })
  const merchant = existing ?? (await createMerchant(deps, { name: sandboxMerchantName }))
  await prepareSandboxMerchant(deps, merchant.id)
  const key = await createApiKey(deps, { merchantId: merchant.id, environment: 'test', label: 'sandbox' })
  return { merchantId: merchant.id, apiKey: key.key, created: existing === undefined }
}

async function prepareSandboxMerchant(deps: Pick<Deps, 'db'>, merchantId: string): Promise<void> {
  await verifyMerchant(deps, { merchantId })
  await deps.db
    .updateTable('merchants')
    .set({ business_name: sandboxPayoutHolder })
    .where('id', '=', merchantId)
    .where('business_name', 'is', null)
    .execute()
}
