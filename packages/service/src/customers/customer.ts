import { z } from '@hono/zod-openapi'
import type { Selectable } from 'kysely'
import type { CustomersTable } from '../db/schema/customers.js'

/** The Customer resource of the API (nullable fields present as null). */
export const Customer = z
  .object({
    id: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    telegramId: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    createdAt: z.string().describe('ISO 8601'),
    updatedAt: z.string().describe('ISO 8601'),
  })
  .openapi('Customer')
/** The Customer resource of the API. */
export type Customer = z.infer<typeof Customer>

/** A customer row as read from the database. */
export type CustomerRow = Selectable<CustomersTable>

/** Renders a customer row as the API's Customer resource. */
export function toCustomerResponse(row: CustomerRow): Customer {
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    telegramId: row.telegram_id,
    metadata: row.metadata,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}
