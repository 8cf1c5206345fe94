import { z } from '@hono/zod-openapi'

const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 20, { message: 'at most 20 metadata keys' })
  .describe('free-form string values; at most 20 keys')

const fields = {
  email: z.email().max(254),
  firstName: z.string().trim().min(1).max(100),
  lastName: z.string().trim().min(1).max(100),
  phone: z
    .string()
    .regex(/^\+?[0-9][0-9 ()-]{3,30}$/, 'must be a phone number such as +2348012345678')
    .describe('E.164 preferred'),
  telegramId: z.string().trim().min(1).max(64),
}

const hasIdentity = (body: Partial<Record<keyof typeof fields, unknown>>) =>
  Object.keys(fields).some((key) => body[key as keyof typeof fields] !== undefined)

/** Body of POST /customers: at least one of email, firstName, lastName, phone, telegramId. */
export const CreateCustomerBody = z
  .object({
    email: fields.email.optional().describe('a second customer with this e-mail returns the first (200)'),
    firstName: fields.firstName.optional(),
    lastName: fields.lastName.optional(),
    phone: fields.phone.optional(),
    telegramId: fields.telegramId.optional(),
    metadata: Metadata.optional(),
  })
  .strict()
  .refine(hasIdentity, { message: 'give at least one of email, firstName, lastName, phone, telegramId' })
  .openapi('CreateCustomerBody')

/** Body of PATCH /customers/{id}: the fields to change (null clears one); metadata merges, "" removes a key. */
export const UpdateCustomerBody = z
  .object({
    email: fields.email.nullable().optional(),
    firstName: fields.firstName.nullable().optional(),
    lastName: fields.lastName.nullable().optional(),
    phone: fields.phone.nullable().optional(),
    telegramId: fields.telegramId.nullable().optional(),
    metadata: Metadata.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' })
  .openapi('UpdateCustomerBody')
/** Body of PATCH /customers/{id}. */
export type UpdateCustomerBody = z.infer<typeof UpdateCustomerBody>
