import { randomBytes } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, describe, expect, test } from 'vitest'
import { createPostgresPaymentClaims, type PaymentClaimsQueryable } from '../src/index.js'

// The claims store shared by a merchant's instances, on PGlite and (with TEST_DATABASE_URL) on a
// PostgreSQL server where the instances are separate connection pools, as separate processes are.
type Kind = { name: string; open(): Promise<{ a: PaymentClaimsQueryable; b: PaymentClaimsQueryable }> }
const closers: (() => Promise<void>)[] = []
let pglite: PGlite | undefined
afterAll(async () => {
  for (const close of closers.reverse()) {
    await close()
  }
})

const kinds: Kind[] = [
  {
    name: 'PGlite',
    // Starting PGlite takes seconds: one per file. It is one session, so both instances share it.
    async open() {
      if (!pglite) {
        const db = new PGlite()
        closers.push(() => db.close())
        pglite = db
      }
      return { a: pglite, b: pglite }
    },
  },
]
const url = process.env.TEST_DATABASE_URL
if (url) {
  kinds.push({
    name: 'PostgreSQL',
    async open() {
      const a = new pg.Pool({ connectionString: url, max: 4 })
      const b = new pg.Pool({ connectionString: url, max: 4 })
      closers.push(async () => {
        await Promise.all([a.end(), b.end()])
      })
      return { a, b }
    },
  })
}

for (const kind of kinds) {
  describe(`createPostgresPaymentClaims on ${kind.name}`, () => {
    const table = `x402_payment_claims_${randomBytes(4).toString('hex')}`
    test('default: of 20 concurrent claims of one payment from two instances, exactly one wins', async () => {
      const { a, b } = await kind.open()
      const claims = [await createPostgresPaymentClaims({ client: a, table })]
      claims.push(await createPostgresPaymentClaims({ client: b, table }))
      const won = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claims[i % 2]?.claim('x402:k1', 60_000, 1_000)),
      )
      expect(won.filter(Boolean)).toHaveLength(1)
      await a.query(`drop table ${table}`)
    })

    test('behavior: a released or expired claim can be taken again; a live one cannot', async () => {
      const { a } = await kind.open()
      const claims = await createPostgresPaymentClaims({ client: a, table })
      expect(await claims.claim('x402:k2', 5_000, 1_000)).toBe(true)
      expect(await claims.claim('x402:k2', 6_000, 4_999)).toBe(false)
      await claims.release('x402:k2')
      expect(await claims.claim('x402:k2', 9_000, 5_000)).toBe(true)
      expect(await claims.claim('x402:k2', 99_000, 9_000)).toBe(true)
      await a.query(`drop table ${table}`)
    })

    test('behavior: a table name that is not a plain identifier is refused', async () => {
      const { a } = await kind.open()
      await expect(createPostgresPaymentClaims({ client: a, table: 'claims; drop table x' })).rejects.toThrow(
        /lower-case SQL identifier/,
      )
    })
  })
}
