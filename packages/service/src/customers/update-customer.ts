import { AppError } from '@tollgate/core'
import { inTransaction } from '../db/in-transaction.js'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import type { CustomerRow } from './customer.js'
import type { UpdateCustomerBody } from './schemas.js'

/**
 * Changes a customer's fields (null clears one) and merges `metadata` (an empty string removes a
 * key). Throws `not_found` for another merchant's customer and `customer_email_taken` when another
 * customer of the merchant has the new e-mail.
 */
export async function updateCustomer(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { merchantId: string; environment: KeyEnvironment; id: string; changes: UpdateCustomerBody },
): Promise<CustomerRow> {
  const { changes } = input
  return inTransaction(deps.db, async (trx) => {
    const current = await trx
      .selectFrom('customers')
      .selectAll()
      .where('merchant_id', '=', input.merchantId)
      .where('environment', '=', input.environment)
      .where('id', '=', input.id)
      .forUpdate()
      .executeTakeFirst()
    if (!current) {
      throw new AppError('not_found', { message: `Customer ${input.id} not found`, context: { param: 'id' } })
    }
    const metadata = { ...current.metadata, ...changes.metadata }
    for (const [key, value] of Object.entries(metadata)) {
      if (value === '') {
        delete metadata[key]
      }
    }
    const set = {
      ...(changes.email === undefined ? {} : { email: changes.email }),
      ...(changes.firstName === undefined ? {} : { first_name: changes.firstName }),
      ...(changes.lastName === undefined ? {} : { last_name: changes.lastName }),
      ...(changes.phone === undefined ? {} : { phone: changes.phone }),
      ...(changes.telegramId === undefined ? {} : { telegram_id: changes.telegramId }),
      metadata: JSON.stringify(metadata),
      updated_at: deps.clock.now(),
    }
    return trx
      .updateTable('customers')
      .set(set)
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((error: unknown) => {
        // 23505 unique_violation on customers_email_idx: e-mails identify a merchant's customers.
        if ((error as { code?: unknown }).code === '23505') {
          throw new AppError('customer_email_taken', {
            message: `Another customer already has the e-mail ${changes.email}`,
            context: { param: 'email' },
            cause: error,
          })
        }
        throw error
      })
  })
}
