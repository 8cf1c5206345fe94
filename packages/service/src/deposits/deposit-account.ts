import { z } from '@hono/zod-openapi'
import type { Selectable } from 'kysely'
import { Customer, type CustomerRow, toCustomerResponse } from '../customers/customer.js'
import type { DepositAccountIdentitiesTable, DepositAccountsTable } from '../db/schema/deposits-swaps.js'
import { ledgerCurrencies } from '../ledger/ledger-currencies.js'

/** Values of a deposit account's `settlementCurrency`: `default` or a balance currency. */
export const settlementCurrencies = ['default', ...Object.keys(ledgerCurrencies)] as [string, ...string[]]

/** A `deposit_accounts` row. */
export type DepositAccountRow = Selectable<DepositAccountsTable>
/** A `deposit_account_identities` row. */
export type DepositIdentityRow = Selectable<DepositAccountIdentitiesTable>

/** A deposit account with what the API embeds: its holder and its identities. */
export type DepositAccountRecord = {
  account: DepositAccountRow
  customer: CustomerRow | null
  identities: DepositIdentityRow[]
}

/** A static deposit address of a deposit account. */
export const StaticDepositAddress = z
  .object({ chain: z.string(), address: z.string(), createdAt: z.string().describe('ISO 8601') })
  .openapi('StaticDepositAddress')

/** An NGN virtual account of a deposit account. */
export const NgnVirtualAccount = z
  .object({
    currency: z.string(),
    accountNumber: z.string(),
    accountName: z.string(),
    bankName: z.string(),
    bankCode: z.string(),
    accountReference: z.string(),
    createdAt: z.string().describe('ISO 8601'),
  })
  .openapi('NgnVirtualAccount')

/** The Deposit account resource (spec "Deposit account"); `customer` is null on the parent account. */
export const DepositAccount = z
  .object({
    id: z.string(),
    status: z.enum(['active']),
    isParent: z.boolean(),
    settlementCurrency: z.string().describe('`default` or a balance currency (docs/deposits.md)'),
    customer: Customer.nullable().describe('the holder; null on the merchant parent account'),
    staticDepositAddresses: z.array(StaticDepositAddress),
    ngnVirtualAccounts: z.array(NgnVirtualAccount),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
  })
  .openapi('DepositAccount')

/** Renders a static-address identity as the API's address object. */
export function toStaticAddressResponse(row: DepositIdentityRow): z.infer<typeof StaticDepositAddress> {
  return { chain: row.chain ?? '', address: row.address ?? '', createdAt: row.created_at.toISOString() }
}

/** Renders a virtual-account identity as the API's virtual account object. */
export function toVirtualAccountResponse(row: DepositIdentityRow): z.infer<typeof NgnVirtualAccount> {
  return {
    currency: row.currency ?? 'NGN',
    accountNumber: row.account_number ?? '',
    accountName: row.account_name ?? '',
    bankName: row.bank_name ?? '',
    bankCode: row.bank_code ?? '',
    accountReference: row.account_reference ?? '',
    createdAt: row.created_at.toISOString(),
  }
}

/** Renders a deposit account with its holder and identities (oldest identity first). */
export function toDepositAccountResponse(record: DepositAccountRecord): z.infer<typeof DepositAccount> {
  const { account, customer, identities } = record
  return {
    id: account.id,
    status: account.status,
    isParent: account.is_parent,
    settlementCurrency: account.settlement_currency,
    customer: customer ? toCustomerResponse(customer) : null,
    staticDepositAddresses: identities
      .filter((i) => i.type === 'static_deposit_address')
      .map(toStaticAddressResponse),
    ngnVirtualAccounts: identities
      .filter((i) => i.type === 'ngn_virtual_account')
      .map(toVirtualAccountResponse),
    createdAt: account.created_at.toISOString(),
    updatedAt: account.updated_at.toISOString(),
  }
}
