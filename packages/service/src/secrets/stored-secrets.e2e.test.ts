import { type Kysely, sql } from 'kysely'
import { Webhook } from 'standardwebhooks'
import { expect, test } from 'vitest'
import type { Database } from '../db/database.js'
import { createOutboundHttp } from '../http/create-outbound-http.js'
import { secretWithheldNote } from '../http/withhold-secrets.js'
import { describeEachDatabase } from '../testing/each-database.js'
import { createHarness } from '../testing/harness.js'
import { startWebhookReceiver } from '../testing/webhook-receiver.js'
import { attemptDelivery } from '../webhooks/deliver-webhook.js'
import { createWebhookEndpoint } from '../webhooks/webhook-endpoints.js'
import { resealStoredSecrets } from './reseal-stored-secrets.js'
import { getSealingKeyId } from './seal-secret.js'
import { generateSecretKeyring, type SecretKeyring } from './secret-keyring.js'

type Envelope<T> = { success: boolean; message: string; data: T }

// Every row of every table of the schema as text (jsonb, arrays and all): a pg_dump of the data.
async function dumpDatabase(db: Kysely<Database>): Promise<string> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
  const rows: string[] = []
  for (const { table_name } of tables.rows) {
    const dumped = await sql<{ row: string }>`select t::text as row from ${sql.table(table_name)} t`.execute(
      db,
    )
    rows.push(...dumped.rows.map((r) => `${table_name}: ${r.row}`))
  }
  return rows.join('\n')
}

function combine(current: SecretKeyring, ...older: SecretKeyring[]): SecretKeyring {
  return {
    currentKeyId: current.currentKeyId,
    keys: new Map([current, ...older].flatMap((k) => [...k.keys])),
  }
}

describeEachDatabase('stored secrets', (getDb) => {
  test('behavior: secrets created with an Idempotency-Key appear nowhere in the database, replays withhold them, deliveries still verify', async () => {
    const h = await createHarness(getDb())
    const receiver = await startWebhookReceiver()
    try {
      const create = (key: string) =>
        h.request('/api/v1/webhooks/endpoints', {
          method: 'POST',
          headers: { 'Idempotency-Key': key },
          json: { url: `${receiver.url}/hook` },
        })
      const first = await create('create-endpoint-1')
      expect(first.status).toBe(200)
      const endpoint = ((await first.json()) as Envelope<{ id: string; secret: string }>).data
      expect(endpoint.secret).toMatch(/^whsec_/)
      const rotated = await h.request('/api/v1/webhooks/account-secret/rotate', {
        method: 'POST',
        headers: { 'Idempotency-Key': 'rotate-account-1' },
      })
      const account = ((await rotated.json()) as Envelope<{ secret: string }>).data.secret
      expect(account).toMatch(/^whsec_/)

      const dump = await dumpDatabase(h.deps.db)
      expect(dump).toContain('idempotency_keys')
      expect(dump).toContain(endpoint.id)
      for (const secret of [endpoint.secret, account]) {
        expect(dump).not.toContain(secret)
        expect(dump).not.toContain(secret.slice('whsec_'.length))
      }
      expect(dump).not.toContain('whsec_')

      // The replay answers the same endpoint without its secret, and says so.
      const replay = await create('create-endpoint-1')
      expect(replay.status).toBe(200)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
      const replayed = (await replay.json()) as Envelope<{ id: string; secret?: string }>
      expect(replayed.data.id).toBe(endpoint.id)
      expect(replayed.data).not.toHaveProperty('secret')
      expect(replayed.message).toContain(secretWithheldNote)

      // A delivery is signed with the secret the merchant was shown.
      const test = await h.request(`/api/v1/webhooks/endpoints/${endpoint.id}/test`, { method: 'POST' })
      expect(test.status).toBe(200)
      const [received] = receiver.received
      expect(received).toBeDefined()
      expect(() =>
        new Webhook(endpoint.secret).verify(received?.body ?? '', received?.headers ?? {}),
      ).not.toThrow()
    } finally {
      await receiver.close()
    }
  })

  test('behavior: rotating the key re-encrypts every stored secret (clear rows too) and deliveries keep verifying', async () => {
    // The pass covers every merchant's rows: start from none (the file's other test stored some).
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'webhook_secrets']) {
      await sql`delete from ${sql.table(table)}`.execute(getDb())
    }
    const oldKeys = generateSecretKeyring('old')
    const http = createOutboundHttp()
    const h = await createHarness(getDb(), { settings: { secretKeyring: oldKeys }, webhookHttp: http })
    const receiver = await startWebhookReceiver()
    try {
      const scope = { merchantId: h.a.id, environment: 'test' as const }
      const sealed = await createWebhookEndpoint(h.deps, { ...scope, url: `${receiver.url}/a` })
      // A row an older release stored in clear.
      const legacy = await createWebhookEndpoint(h.deps, { ...scope, url: `${receiver.url}/b` })
      await h.deps.db
        .updateTable('webhook_endpoints')
        .set({ secret: legacy.secret })
        .where('id', '=', legacy.id)
        .execute()

      const newKeys = generateSecretKeyring('new')
      h.deps.settings.secretKeyring = combine(newKeys, oldKeys)
      expect(await resealStoredSecrets(h.deps)).toBeGreaterThanOrEqual(2)
      expect(await resealStoredSecrets(h.deps)).toBe(0)
      const rows = await h.deps.db.selectFrom('webhook_endpoints').select(['id', 'secret']).execute()
      for (const row of rows) {
        expect(getSealingKeyId(row.secret)).toBe('new')
      }
      expect(await dumpDatabase(h.deps.db)).not.toContain('whsec_')

      // The old key can now be retired: the new one alone signs both endpoints' deliveries.
      h.deps.settings.secretKeyring = newKeys
      for (const endpoint of [sealed, legacy]) {
        const eventId = h.deps.ids.create('evt')
        const deliveryId = h.deps.ids.create('whd')
        const now = h.deps.clock.now()
        await h.deps.db
          .insertInto('events')
          .values({
            id: eventId,
            ...{ merchant_id: h.a.id, environment: 'test' },
            type: 'webhook.test',
            format: 'current',
            payload: JSON.stringify({ event: 'webhook.test', data: {} }),
            webhook_url: null,
            created_at: now,
          })
          .execute()
        await h.deps.db
          .insertInto('webhook_deliveries')
          .values({
            id: deliveryId,
            event_id: eventId,
            endpoint_id: endpoint.id,
            merchant_id: h.a.id,
            environment: 'test',
            url: endpoint.url,
            status: 'pending',
            max_attempts: 1,
            next_attempt_at: now,
            created_at: now,
            updated_at: now,
          })
          .execute()
        expect(await attemptDelivery({ ...h.deps, http }, deliveryId)).toMatchObject({
          succeeded: true,
        })
        const received = receiver.received.at(-1)
        expect(() =>
          new Webhook(endpoint.secret).verify(received?.body ?? '', received?.headers ?? {}),
        ).not.toThrow()
      }

      // A keyring without the key a row is sealed under refuses to guess.
      h.deps.settings.secretKeyring = oldKeys
      await expect(resealStoredSecrets(h.deps)).rejects.toMatchObject({ code: 'secret_unreadable' })
    } finally {
      await receiver.close()
      await http.close()
    }
  })
})
