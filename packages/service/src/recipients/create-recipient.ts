import { AppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { type RecipientDetailsInput, type RecipientRow, toSearchText } from './recipient.js'
import { resolveRecipient } from './resolve-recipient.js'

/** Input of {@link createRecipient}: the type and details plus the address-book fields. */
export type CreateRecipientInput = {
  merchantId: string
  environment: KeyEnvironment
  recipient: RecipientDetailsInput
  label?: string | undefined
  isTemporary?: boolean | undefined
  notes?: string | undefined
  customerId?: string | undefined
}

/**
 * Resolves and saves a recipient. A bank account must be held under the merchant's name or business
 * name. When the same destination is already saved, that recipient is returned (`created: false`);
 * saving a temporary one into the address book moves it there (docs/payouts.md "Recipients").
 */
export async function createRecipient(
  deps: Pick<Deps, 'db' | 'ids' | 'clock' | 'rails'>,
  input: CreateRecipientInput,
): Promise<{ recipient: RecipientRow; created: boolean }> {
  const resolved = await resolveRecipient(deps, input)
  if (!resolved.nameMatches) {
    const message = `The account is held by "${resolved.holderName}", which matches neither the merchant's name nor its business name`
    throw new AppError('validation_error', {
      message,
      context: {
        param: 'details.accountNumber',
        details: [{ field: 'body.details.accountNumber', message, code: 'account_name_mismatch' }],
      },
    })
  }
  if (input.customerId !== undefined) {
    const customer = await deps.db
      .selectFrom('customers')
      .select('id')
      .where('id', '=', input.customerId)
      .where('merchant_id', '=', input.merchantId)
      .where('environment', '=', input.environment)
      .executeTakeFirst()
    if (!customer) {
      const message = `Customer ${input.customerId} not found`
      throw new AppError('validation_error', {
        message,
        context: { param: 'customerId', details: [{ field: 'body.customerId', message, code: 'not_found' }] },
      })
    }
  }
  const now = deps.clock.now()
  const label = input.label ?? resolved.defaultLabel
  const isTemporary = input.isTemporary ?? false
  const notes = input.notes === undefined || input.notes === '' ? null : input.notes
  const inserted = await deps.db
    .insertInto('recipients')
    .values({
      id: deps.ids.create('rcp'),
      merchant_id: input.merchantId,
      environment: input.environment,
      type: resolved.type,
      label,
      is_temporary: isTemporary,
      customer_id: input.customerId ?? null,
      notes,
      details: JSON.stringify(resolved.details),
      fingerprint: resolved.fingerprint,
      search_text: toSearchText(resolved.details, label),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'environment', 'fingerprint']).where('deleted_at', 'is', null).doNothing(),
    )
    .returningAll()
    .executeTakeFirst()
  if (inserted) {
    return { recipient: inserted, created: true }
  }
  const existing = await deps.db
    .selectFrom('recipients')
    .selectAll()
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('fingerprint', '=', resolved.fingerprint)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow()
  if (existing.is_temporary && !isTemporary) {
    const promoted = await deps.db
      .updateTable('recipients')
      .set({ is_temporary: false, updated_at: now })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return { recipient: promoted, created: false }
  }
  return { recipient: existing, created: false }
}
