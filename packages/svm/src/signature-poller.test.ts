import type { Blockhash, GetSignatureStatusesApi, IsBlockhashValidApi, Rpc, Signature } from '@solana/kit'
import { describe, expect, test } from 'vitest'
import { SignaturePoller } from './signature-poller.js'

type Status = { confirmationStatus: string; err: unknown } | null

// A fake RPC: statuses and blockhash validity come from the test; every call is logged.
function createFakeRpc(state: {
  statuses: Record<string, Status>
  validBlockhash: boolean
  failNext?: number
}) {
  const calls: string[][] = []
  const rpc = {
    getSignatureStatuses: (signatures: string[]) => ({
      send: async () => {
        calls.push(signatures)
        if (state.failNext && state.failNext-- > 0) {
          throw new Error('connection reset')
        }
        return { context: { slot: 1n }, value: signatures.map((s) => state.statuses[s] ?? null) }
      },
    }),
    isBlockhashValid: () => ({ send: async () => ({ context: { slot: 1n }, value: state.validBlockhash }) }),
  } as unknown as Rpc<GetSignatureStatusesApi & IsBlockhashValidApi>
  return { rpc, calls }
}

const sig = (n: number) => `sig${n}` as Signature
const blockhash = 'hash' as Blockhash

describe('SignaturePoller', () => {
  test('default: concurrent waits share one getSignatureStatuses call per tick', async () => {
    const state = {
      statuses: {
        sig1: { confirmationStatus: 'confirmed', err: null },
        sig2: { confirmationStatus: 'finalized', err: null },
        sig3: { confirmationStatus: 'confirmed', err: { InstructionError: [2, { Custom: 1 }] } },
      },
      validBlockhash: true,
    }
    const { rpc, calls } = createFakeRpc(state)
    const poller = new SignaturePoller(rpc, { intervalMs: 5, now: Date.now })
    const outcomes = await Promise.all(
      [1, 2, 3].map((n) => poller.wait(sig(n), { blockhash, timeoutMs: 1000 })),
    )
    expect(outcomes).toEqual([
      { status: 'confirmed' },
      { status: 'confirmed' },
      { status: 'failed', err: { InstructionError: [2, { Custom: 1 }] } },
    ])
    expect(calls).toEqual([['sig1', 'sig2', 'sig3']])
  })

  test('behavior: keeps polling through processed and RPC errors until confirmed', async () => {
    const state = {
      statuses: { sig1: { confirmationStatus: 'processed', err: null } } as Record<string, Status>,
      validBlockhash: true,
      failNext: 1,
    }
    const { rpc, calls } = createFakeRpc(state)
    const poller = new SignaturePoller(rpc, { intervalMs: 5, now: Date.now })
    const waiting = poller.wait(sig(1), { blockhash, timeoutMs: 1000 })
    await new Promise((resolve) => setTimeout(resolve, 30))
    state.statuses.sig1 = { confirmationStatus: 'confirmed', err: null }
    expect(await waiting).toEqual({ status: 'confirmed' })
    expect(calls.length).toBeGreaterThan(2)
  })

  test('behavior: an unknown signature whose blockhash expired is expired; a valid one times out', async () => {
    const expiredState = { statuses: {}, validBlockhash: false }
    const expired = new SignaturePoller(createFakeRpc(expiredState).rpc, { intervalMs: 5, now: Date.now })
    expect(await expired.wait(sig(1), { blockhash, timeoutMs: 1000 })).toEqual({ status: 'expired' })

    const pendingState = { statuses: {}, validBlockhash: true }
    const pending = new SignaturePoller(createFakeRpc(pendingState).rpc, { intervalMs: 5, now: Date.now })
    expect(await pending.wait(sig(1), { blockhash, timeoutMs: 30 })).toEqual({ status: 'timeout' })
    // Without a blockhash there is no expiry check: only the deadline ends the wait.
    expect(await expired.wait(sig(2), { timeoutMs: 30 })).toEqual({ status: 'timeout' })
  })

  test('behavior: a hung RPC call does not hold the wait past its deadline', async () => {
    const hung = {
      getSignatureStatuses: () => ({ send: () => new Promise(() => {}) }),
      isBlockhashValid: () => ({ send: () => new Promise(() => {}) }),
    } as unknown as Rpc<GetSignatureStatusesApi & IsBlockhashValidApi>
    const poller = new SignaturePoller(hung, { intervalMs: 5, now: Date.now })
    expect(await poller.wait(sig(1), { blockhash, timeoutMs: 20 })).toEqual({ status: 'timeout' })
  })

  test('behavior: a signature arriving while the poller sleeps is polled without waiting out the interval', async () => {
    const state = { statuses: {} as Record<string, Status>, validBlockhash: true }
    const { rpc, calls } = createFakeRpc(state)
    // An interval far beyond the test timeout: only the early wake-up can finish this test.
    const poller = new SignaturePoller(rpc, { intervalMs: 600_000, now: Date.now })
    const first = poller.wait(sig(1), { blockhash, timeoutMs: 600_000 })
    await new Promise((resolve) => setTimeout(resolve, 30))
    state.statuses = {
      sig1: { confirmationStatus: 'confirmed', err: null },
      sig2: { confirmationStatus: 'confirmed', err: null },
    }
    expect(await poller.wait(sig(2), { blockhash, timeoutMs: 600_000 })).toEqual({ status: 'confirmed' })
    expect(await first).toEqual({ status: 'confirmed' })
    expect(calls).toEqual([['sig1'], ['sig1', 'sig2']])
  })
})
