import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import { selectIncomingTransfers } from '../rails/chains/incoming-store.js'

/**
 * Waits until incoming transfer `id` reads `status` on a connection of its own. Subscribers run
 * inside the watcher's recording transaction, before its commit, so a test that acts on what a
 * subscriber saw (sweeping a `confirmed` transfer, reading its sweep job) must wait for that commit
 * first: on PostgreSQL another connection still reads the old row until then.
 */
export async function waitCommittedTransfer(
  db: Kysely<Database>,
  id: string,
  status: 'seen' | 'confirmed' | 'reverted' = 'confirmed',
): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await selectIncomingTransfers(db, { ids: [id] })
    if (row?.status === status) {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`incoming transfer ${id} did not commit as ${status}`)
}
