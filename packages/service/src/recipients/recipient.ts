import { z } from '@hono/zod-openapi'
import type { Selectable } from 'kysely'
import type { RecipientsTable, RecipientType } from '../db/schema/payouts.js'
import { chainNames } from '../reference/chains.js'

/** Recipient types a merchant can create (the spec's `zar_bank_account` is payout-only and not offered). */
export const recipientTypes = [
  'crypto_address',
  'ngn_bank_account',
  'kes_mobile_money',
  'ghs_mobile_money',
] as const satisfies readonly RecipientType[]

/** Every PayoutRecipient type of the spec. */
export const payoutRecipientTypes = [...recipientTypes, 'zar_bank_account'] as const

const text = (max: number) => z.string().trim().min(1).max(max)

/** `details` of a crypto-address recipient. */
export const CryptoDetailsInput = z.object({
  chain: z.enum(chainNames).describe('chain name, e.g. base'),
  address: text(200).describe('address on that chain (checksums are checked)'),
})

/** `details` of an NGN bank-account recipient (NUBAN: 10 digits). */
export const BankDetailsInput = z.object({
  accountNumber: z
    .string()
    .regex(/^\d{10}$/, 'must be a 10-digit NUBAN account number')
    .describe('10-digit NUBAN'),
  bankCode: z
    .string()
    .regex(/^\d{3,6}$/, 'must be a bank code from GET /recipients/banks')
    .describe('bank code of GET /recipients/banks'),
  accountType: text(40).optional(),
})

/** `details` of a KES or GHS mobile-money recipient. */
export const MobileMoneyDetailsInput = z.object({
  phoneNumber: text(32).describe('phone number, E.164 preferred (+254…, +233…)'),
  accountName: text(100).describe('holder name'),
  institutionCode: text(50).describe('provider code, e.g. MPESA'),
  accountType: text(40).optional(),
})

/** The `type` + `details` pair of POST /recipients and POST /recipients/validate. */
export const RecipientDetailsInput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('crypto_address'), details: CryptoDetailsInput }),
  z.object({ type: z.literal('ngn_bank_account'), details: BankDetailsInput }),
  z.object({ type: z.literal('kes_mobile_money'), details: MobileMoneyDetailsInput }),
  z.object({ type: z.literal('ghs_mobile_money'), details: MobileMoneyDetailsInput }),
])
/** The `type` + `details` pair of POST /recipients and POST /recipients/validate. */
export type RecipientDetailsInput = z.infer<typeof RecipientDetailsInput>

const nullableString = z.string().nullable()

/** `details` of a recipient in responses: the type's fields, account numbers masked. */
export const RecipientDetails = z
  .object({
    chain: nullableString.optional(),
    address: nullableString.optional(),
    accountName: nullableString.optional(),
    accountNumber: nullableString.optional().describe('masked: all but the last four digits are *'),
    bankName: nullableString.optional(),
    bankCode: nullableString.optional(),
    accountType: nullableString.optional(),
    currency: nullableString.optional(),
    countryIsoCode: nullableString.optional(),
    institutionCode: nullableString.optional(),
    institutionName: nullableString.optional(),
  })
  .openapi('RecipientDetails')

/** A saved recipient (address book or temporary). */
export const Recipient = z
  .object({
    id: z.string(),
    type: z.enum(recipientTypes),
    label: z.string(),
    isDefault: z.boolean().describe('the default recipient of its type'),
    isTrusted: z.boolean().describe('dashboard payouts to it need no one-time code'),
    isTemporary: z.boolean().describe('one-time recipient, not in the address book'),
    customerId: z.string().nullable().describe('linked customer'),
    notes: z.string().nullable(),
    details: RecipientDetails,
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
  })
  .openapi('Recipient')
/** A saved recipient (address book or temporary). */
export type Recipient = z.infer<typeof Recipient>

/** A recipient row as read from the database. */
export type RecipientRow = Selectable<RecipientsTable>

/** Masks an account or phone number: every digit but the last four becomes `*` (`******7890`). */
export function maskAccountNumber(value: string): string {
  let keep = 4
  const chars = [...value]
  for (let i = chars.length - 1; i >= 0; i--) {
    if (/\d/.test(chars[i] ?? '')) {
      if (keep > 0) {
        keep -= 1
      } else {
        chars[i] = '*'
      }
    }
  }
  return chars.join('')
}

/** A copy of `details` with `accountNumber` masked (crypto addresses are public and shown whole). */
export function maskDetails(details: Record<string, string | null>): Record<string, string | null> {
  const { accountNumber } = details
  return typeof accountNumber === 'string'
    ? { ...details, accountNumber: maskAccountNumber(accountNumber) }
    : details
}

/** Renders a recipient row as the API's Recipient resource. */
export function toRecipientResponse(row: RecipientRow): Recipient {
  return {
    id: row.id,
    type: row.type,
    label: row.label,
    isDefault: row.is_default,
    isTrusted: row.is_trusted,
    isTemporary: row.is_temporary,
    customerId: row.customer_id,
    notes: row.notes,
    details: maskDetails(row.details),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** What the free-text `search` of GET /recipients looks in: holder name, institution (or chain) and label. */
export function toSearchText(details: Record<string, string | null>, label: string): string {
  const institution = details.bankName ?? details.institutionName ?? details.chain ?? null
  return [details.accountName ?? null, institution, label]
    .filter((part) => part !== null && part !== undefined)
    .join(' ')
    .toLowerCase()
}
