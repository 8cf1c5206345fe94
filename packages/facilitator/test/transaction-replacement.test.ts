import { REASONS, type SettleContext, type SettleResponse } from '@tollgate/core'
import { buildFakeRequest, createFakeScheme } from '@tollgate/facilitator/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { createFacilitator, type Facilitator } from '../src/create-facilitator.js'
import { createMemorySettlementStore } from '../src/memory-settlement-store.js'
import type { SettlementStore } from '../src/settlement-store.js'

// How the coordinator records a relayer's fee-bumped replacement (same sender and nonce) of a
// settlement transaction: through the `recordBroadcast` of the settle that sent it, also after
// that settle answered `settlement_pending`. The EVM relayer's side is in
// stuck-transaction.test.ts; here a scripted scheme plays each settle.

const NETWORK = 'eip155:84532'

type Play = (context: SettleContext) => Promise<SettleResponse>

/** A scheme whose settles run the given plays in order, keeping every context they were handed. */
function createScriptedScheme(plays: Play[]) {
  const contexts: SettleContext[] = []
  const scheme = {
    ...createFakeScheme(),
    async settle(_payment: unknown, _requirements: unknown, context: SettleContext) {
      contexts.push(context)
      const play = plays.shift()
      if (!play) {
        throw new Error('no play left')
      }
      return play(context)
    },
  }
  return { scheme, contexts }
}

const pending = (transaction: string): SettleResponse => ({
  success: false,
  errorReason: REASONS.settlementPending,
  transaction,
  network: NETWORK,
})
const settled = (transaction: string): SettleResponse => ({ success: true, transaction, network: NETWORK })

/** A first settle that broadcasts `0xa` and answers pending (its receipt wait ran out). */
const sendAndTimeOut: Play = async (context) => {
  await context.recordBroadcast('0xa')
  return pending('0xa')
}

describe('recording a replaced settlement transaction', () => {
  const facilitators: Facilitator[] = []
  afterEach(() => {
    for (const facilitator of facilitators.splice(0)) {
      facilitator.close()
    }
  })

  function start(plays: Play[]) {
    const store: SettlementStore = createMemorySettlementStore()
    const { scheme, contexts } = createScriptedScheme(plays)
    const facilitator = createFacilitator({ schemes: [scheme], store })
    facilitators.push(facilitator)
    const { paymentPayload, paymentRequirements } = buildFakeRequest()
    const row = () => store.get(String(scheme.getSettlementKey(paymentPayload, paymentRequirements)))
    return { store, facilitator, contexts, row }
  }

  test('default: a replacement after the settle answered pending is recorded, and re-awaited', async () => {
    const reawaited: Array<string | undefined> = []
    const { facilitator, contexts, row } = start([
      sendAndTimeOut,
      async (context) => {
        reawaited.push(context.previousTransaction)
        return settled('0xc')
      },
    ])
    expect(await facilitator.settle(buildFakeRequest())).toMatchObject(pending('0xa'))
    expect(await row()).toMatchObject({ state: 'pending', transaction: '0xa' })

    const first = contexts[0] as SettleContext
    await first.recordBroadcast('0xb')
    expect(await row()).toMatchObject({ state: 'pending', transaction: '0xb' })
    await first.recordBroadcast('0xc')
    expect(await row()).toMatchObject({ state: 'pending', transaction: '0xc' })

    expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
    expect(reawaited).toEqual(['0xc'])
    // The retry that follows `settlement_pending` takes the success the reconciler stored.
    expect(await facilitator.settle(buildFakeRequest())).toEqual(settled('0xc'))
    // Mined: a late replacement of a final row is refused (the relayer then does not send it).
    await expect(first.recordBroadcast('0xd')).rejects.toThrow(/claim was lost/)
    // The success was answered once: another settle of the payment is refused.
    expect(await facilitator.settle(buildFakeRequest())).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    })
  })

  test('behavior: a replacement during the wait is the transaction a pending outcome stores', async () => {
    const { facilitator, row } = start([
      async (context) => {
        await context.recordBroadcast('0xa')
        await context.recordBroadcast('0xb')
        // The scheme awaited the hash it sent first.
        return pending('0xa')
      },
    ])
    expect(await facilitator.settle(buildFakeRequest())).toMatchObject(pending('0xb'))
    expect(await row()).toMatchObject({ state: 'pending', transaction: '0xb', result: pending('0xb') })
  })

  test('behavior: a settle that recorded nothing itself cannot record once it released the row', async () => {
    const { facilitator, contexts, row } = start([sendAndTimeOut, async () => pending('0xa')])
    await facilitator.settle(buildFakeRequest())
    expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, pending: 1 })
    // The re-await only inherited 0xa: anything it would send now is a new transaction, not a
    // replacement, so it may not go out without the claim.
    const reawait = contexts[1] as SettleContext
    await expect(reawait.recordBroadcast('0xnew')).rejects.toThrow(/claim was lost/)
    expect(await row()).toMatchObject({ state: 'pending', transaction: '0xa' })
  })

  test('behavior: a re-await that started from the replaced hash cannot store its stale view', async () => {
    const resent: string[] = []
    const { facilitator, contexts, row } = start([
      sendAndTimeOut,
      async (context) => {
        // While this reconciler re-awaits 0xa, the relayer replaces it with 0xb.
        await (contexts[0] as SettleContext).recordBroadcast('0xb')
        // Seeing no 0xa anywhere, it would send the payment anew: refused before any broadcast.
        await context.recordBroadcast('0xresent').then(
          () => resent.push('0xresent'),
          () => undefined,
        )
        return pending('0xa')
      },
      async (context) => settled(context.previousTransaction ?? ''),
    ])
    await facilitator.settle(buildFakeRequest())
    expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, pending: 1 })
    expect(resent).toEqual([])
    const current = await row()
    expect(current).toMatchObject({ state: 'pending', transaction: '0xb' })
    expect(current?.owner).toBeUndefined()
    expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
    expect(await facilitator.settle(buildFakeRequest())).toEqual(settled('0xb'))
  })

  test('behavior: a re-await released by a replacement still answers the success it saw', async () => {
    const { facilitator, contexts, row } = start([
      sendAndTimeOut,
      async () => {
        await (contexts[0] as SettleContext).recordBroadcast('0xb')
        // Its receipt wait follows replacements, and 0xb is mined.
        return settled('0xb')
      },
    ])
    await facilitator.settle(buildFakeRequest())
    expect(await facilitator.reconcilePending()).toMatchObject({ checked: 1, settled: 1 })
    // The row is the next holder's to finish; it re-awaits the stored 0xb.
    expect(await row()).toMatchObject({ state: 'pending', transaction: '0xb' })
  })
})
