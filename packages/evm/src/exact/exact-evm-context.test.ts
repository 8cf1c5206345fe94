import { createAssetRegistry } from '@tollgate/core'
import { describe, expect, it } from 'vitest'
import type { Relayer } from '../relayer/types.js'
import { createExactEvmContext, type EvmFacilitatorClient } from './exact-evm-context.js'

const TOKEN = '0x00000000000000000000000000000000000000aa'
const EMPTY_RESULTS = `0x${(32).toString(16).padStart(64, '0')}${'0'.repeat(64)}` as const

// A node whose eth_calls answer (an empty aggregate3 result) only when released; counts how many
// were sent before the first answer.
function createGatedClient() {
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const state = { sent: 0 }
  const client = {
    getCode: async () => '0x01',
    call: async () => {
      state.sent += 1
      await gate
      return { data: EMPTY_RESULTS }
    },
  } as unknown as EvmFacilitatorClient
  return { client, state, release: () => release() }
}

async function sendInSeparateTurns(maxEthCallsInFlight: number | undefined) {
  const node = createGatedClient()
  const context = createExactEvmContext({
    networks: {
      'eip155:84532': {
        client: node.client,
        relayer: {} as Relayer,
        ...(maxEthCallsInFlight === undefined ? {} : { maxEthCallsInFlight }),
      },
    },
    assets: createAssetRegistry([]),
  })
  const batcher = context.networks.get('eip155:84532')?.batcher
  if (!batcher) {
    throw new Error('no batcher')
  }
  const call = { target: TOKEN, callData: '0x01' } as const
  const runs = []
  for (let i = 0; i < 3; i++) {
    runs.push(batcher.run([call]).catch(() => undefined))
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
  }
  const sentBeforeAnswers = node.state.sent
  node.release()
  await Promise.all(runs)
  return sentBeforeAnswers
}

describe('createExactEvmContext', () => {
  it('lets two verify eth_calls await the node by default', async () => {
    expect(await sendInSeparateTurns(undefined)).toBe(2)
  })

  it('passes maxEthCallsInFlight to the network batcher', async () => {
    expect(await sendInSeparateTurns(1)).toBe(1)
  })
})
