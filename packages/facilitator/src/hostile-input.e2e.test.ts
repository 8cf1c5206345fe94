import {
  deepNesting,
  MALFORMED_BODIES,
  sampleHostileBodies,
  sweepHostileBodies,
  toHostileJsonText,
} from '@tollgate/core/testing'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createFacilitatorApp } from './create-facilitator-app.js'
import { openSettlementDatabase } from './open-settlement-database.js'
import { createPostgresSettlementStore, type SettlementDatabase } from './postgres-settlement-store.js'
import { SETTLEMENT_TABLE } from './settlement-migrations.js'
import { createHostileInputFacilitator, HOSTILE_INPUT_BASES } from './testing/hostile-input-fixtures.js'

// The facilitator's promise (docs/facilitator.md): malformed input is a 4xx `{ error, message }`
// that stores nothing, an invalid payment is a 200 with isValid/success false, and neither is ever
// a 5xx. (A well-formed but invalid /settle may leave its `failed` outcome in the settlement store,
// as every settle does.) Each scheme gets well-formed v1 and v2 bodies to mutate; the chain behind
// them knows no code and refuses every call, so no hostile body can be valid.

type Outcome = { label: string; status: number; body: unknown; written: number }

describe('facilitator app under hostile input', () => {
  let db: Kysely<SettlementDatabase>
  let app: ReturnType<typeof createFacilitatorApp>
  const outcomes: Outcome[] = []

  beforeAll(async () => {
    db = await openSettlementDatabase()
    const store = await createPostgresSettlementStore({ db })
    const facilitator = await createHostileInputFacilitator({ store })
    app = createFacilitatorApp(facilitator, { bodyLimitBytes: 128 * 1024 })
  })
  afterAll(async () => {
    await db?.destroy()
  })

  const countRows = async () => {
    const row = await db
      .selectFrom(SETTLEMENT_TABLE)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  const send = async (label: string, path: string, text: string, contentType = 'application/json') => {
    const before = await countRows()
    const response = await app.request(path, {
      method: 'POST',
      body: text,
      headers: { 'Content-Type': contentType },
    })
    const raw = await response.text()
    let body: unknown = raw
    try {
      body = JSON.parse(raw)
    } catch {}
    outcomes.push({
      label: `${path} ${label}`,
      status: response.status,
      body,
      written: (await countRows()) - before,
    })
  }

  const expectNoServerErrors = (from: number) => {
    const answered = outcomes.slice(from)
    const failures = answered
      .filter((o) => o.status >= 500)
      .map((o) => `${o.status} ${o.label.slice(0, 160)}`)
    expect(failures, `${failures.length} of ${answered.length} answered 5xx`).toEqual([])
    for (const { label, status, body, written } of answered) {
      if (status === 200) {
        // Nothing hostile is ever a valid payment.
        expect(body, label).toSatisfy(
          (b: { isValid?: boolean; success?: boolean }) => b.isValid === false || b.success === false,
        )
      } else {
        expect(status, label).toBeGreaterThanOrEqual(400)
        expect(written, label).toBe(0)
        expect(body, label).toMatchObject({ error: expect.any(String), message: expect.any(String) })
      }
    }
  }

  test('behavior: malformed bodies and bodies over the limit are 4xx on /verify and /settle', async () => {
    const from = outcomes.length
    for (const path of ['/verify', '/settle']) {
      for (const text of MALFORMED_BODIES) {
        await send(`malformed ${JSON.stringify(text.slice(0, 40))}`, path, text)
      }
      await send('over the limit', path, JSON.stringify({ a: 'x'.repeat(200 * 1024) }))
      await send('text/plain', path, JSON.stringify(HOSTILE_INPUT_BASES['eip3009 v2']), 'text/plain')
    }
    expectNoServerErrors(from)
  })

  for (const [name, base] of Object.entries(HOSTILE_INPUT_BASES)) {
    test(`behavior: ${name} bodies with hostile fields never get a 5xx; the refused ones store nothing`, async () => {
      const from = outcomes.length
      // Every field gets one value of each class of issue 21; then random mutations.
      const swept = sweepHostileBodies(base, [
        '12abc',
        '1e3',
        ' 5',
        '-0x1',
        'a\u0000b',
        'lone \ud800',
        deepNesting(3_000),
        deepNesting(10_000),
        null,
      ])
      const sampled = sampleHostileBodies(base, { count: 60, seed: 21 })
      for (const [index, body] of [...swept, ...sampled].entries()) {
        const text = toHostileJsonText(body)
        for (const path of ['/verify', '/settle']) {
          await send(`${name} #${index} ${text.slice(0, 200)}`, path, text)
        }
      }
      expectNoServerErrors(from)
    })
  }
})
