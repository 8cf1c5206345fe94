import { expect } from 'vitest'
import type { Harness } from './harness.js'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and pinned by the assertions.
type Json = Record<string, any>

/** Helpers of the devnet session tests: open a session, wait for a state, list its events. */
export type SessionProbe = {
  /** `POST /payments` for 5.00 USD with a customer e-mail (so the address is allocated at once). */
  open(fields: { asset: string; chain: string } & Json): Promise<Json>
  /** Reads the session (with transactions) every 100 ms until `done` holds or 30 s passed. */
  waitFor(session: Json, done: (current: Json) => boolean): Promise<Json>
  /** The event types emitted for `session`, in order. */
  eventTypes(session: Json): Promise<string[]>
}

/** A {@link SessionProbe} over merchant A of `h`. */
export function createSessionProbe(h: Harness): SessionProbe {
  return {
    open: async (fields) => {
      const json = {
        title: 'Devnet order',
        amount: '5.00',
        currency: 'USD',
        customer: { email: 'devnet@example.com' },
        ...fields,
      }
      const res = await h.request('/api/v1/payments', { method: 'POST', json })
      expect(res.status).toBe(200)
      return ((await res.json()) as Json).data
    },
    waitFor: async (session, done) => {
      const deadline = Date.now() + 30_000
      for (;;) {
        const url = `/api/v1/payments/reference/${session.reference}?includeTransactions=true`
        const current = ((await (await h.request(url)).json()) as Json).data
        if (done(current) || Date.now() > deadline) {
          return current
        }
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    eventTypes: async (session) =>
      (
        await h.deps.db
          .selectFrom('events')
          .selectAll()
          .where('merchant_id', '=', h.a.id)
          .orderBy('seq')
          .execute()
      )
        .filter((e) => (e.payload as Json).data.session.id === session.id)
        .map((e) => e.type),
  }
}

/**
 * Waits (up to 30 s) until the EVM watcher of `network` has polled once and holds a cursor: its
 * first poll starts at the head, so a payment made before it would not be scanned.
 */
export async function waitForChainCursor(h: Harness, network: string): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    const cursor = await h.deps.db
      .selectFrom('chain_cursors')
      .select('network')
      .where('network', '=', network)
      .executeTakeFirst()
    if (cursor) {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the watcher of ${network} did not poll within 30 s`)
}
