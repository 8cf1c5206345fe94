import type { Kysely } from 'kysely'
import type { Database } from '../db/database.js'
import type { Deps } from '../deps.js'
import { createRails, type RailsOptions } from '../rails/create-rails.js'
import type { CryptoSend, CryptoSendHandler, Rails, SandboxControls } from '../rails/types.js'

/**
 * The sandbox rails (`createRails`) for payout tests, with two test hooks: every fiat `transfer`
 * call is counted per id (paid at most once), and crypto sends can be steered (`cryptoMode`):
 * `real` uses the sandbox sender (chains without a node confirm at once), `pending` keeps a send
 * pending until {@link PayoutTestRails.settleCrypto}, `fail` fails it at once (a reverted send).
 */
export type PayoutTestRails = Rails & {
  sandboxControls: SandboxControls
  /** How many times each id reached the bank, mobile-money or crypto `transfer` / `send`. */
  calls: Map<string, number>
  cryptoMode: { value: 'real' | 'pending' | 'fail' }
  settleCrypto(db: Kysely<Database>, idempotencyKey: string, status: 'confirmed' | 'failed'): Promise<void>
}

/** Builds {@link PayoutTestRails}; provider callbacks wait for the test (a long callback delay). */
export function createPayoutTestRails(
  base: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: RailsOptions = {},
): PayoutTestRails {
  const rails = createRails(base, { fiat: { callbackDelayMs: 3_600_000 }, ...options })
  const controls = rails.sandboxControls
  if (!controls) {
    throw new Error('the sandbox rails have no sandbox controls')
  }
  const calls = new Map<string, number>()
  const count = (id: string) => calls.set(id, (calls.get(id) ?? 0) + 1)
  const sends = new Map<string, CryptoSend>()
  const handlers = new Set<CryptoSendHandler>()
  const cryptoMode: PayoutTestRails['cryptoMode'] = { value: 'real' }

  const settle = async (db: Kysely<Database>, send: CryptoSend) => {
    sends.set(send.idempotencyKey, send)
    await db.transaction().execute(async (trx) => {
      for (const handler of handlers) {
        await handler(trx, send)
      }
    })
  }

  return {
    ...rails,
    sandboxControls: controls,
    calls,
    cryptoMode,
    banks: {
      ...rails.banks,
      transfer: (input) => {
        count(input.id)
        return rails.banks.transfer(input)
      },
    },
    mobileMoney: {
      ...rails.mobileMoney,
      transfer: (input) => {
        count(input.id)
        return rails.mobileMoney.transfer(input)
      },
    },
    crypto: {
      ...rails.crypto,
      send: async (input) => {
        count(input.idempotencyKey)
        const existing = sends.get(input.idempotencyKey)
        if (cryptoMode.value === 'real' || existing) {
          return existing ?? rails.crypto.send(input)
        }
        const now = base.clock.now()
        const send: CryptoSend = {
          id: `csend_test_${input.idempotencyKey}`,
          ...input,
          status: 'pending',
          txHash: `0x${Buffer.from(input.idempotencyKey).toString('hex').padEnd(64, '0').slice(0, 64)}`,
          failureReason: null,
          createdAt: now,
          updatedAt: now,
        }
        sends.set(input.idempotencyKey, send)
        if (cryptoMode.value === 'fail') {
          await settle(base.db, { ...send, status: 'failed', failureReason: 'reverted' })
        }
        return sends.get(input.idempotencyKey) ?? send
      },
      get: async (key, environment) => sends.get(key) ?? rails.crypto.get(key, environment),
      onSettled: (handler) => {
        handlers.add(handler)
        const stop = rails.crypto.onSettled(handler)
        return () => {
          handlers.delete(handler)
          stop()
        }
      },
    },
    settleCrypto: async (db, key, status) => {
      const send = sends.get(key)
      if (!send) {
        throw new Error(`no steered send ${key}`)
      }
      await settle(db, { ...send, status, failureReason: status === 'failed' ? 'reverted' : null })
    },
  }
}
