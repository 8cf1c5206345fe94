import { isAppError } from '@tollgate/core'
import { PERMIT2_ADDRESS } from '@tollgate/evm'
import { describe, expect, test } from 'vitest'
import { ensurePermit2Approval } from './ensure-permit2-approval.js'

const owner = '0x1111111111111111111111111111111111111111'
const token = '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd'

function setup(allowance: bigint, status: 'success' | 'reverted' = 'success') {
  const reads: unknown[] = []
  const sent: { to: string; data: string }[] = []
  const client = {
    readContract: async (request: unknown) => {
      reads.push(request)
      return allowance
    },
    waitForTransactionReceipt: async () => ({ status }),
  }
  const wallet = {
    sendTransaction: async (request: { to: `0x${string}`; data: `0x${string}` }) => {
      sent.push(request)
      return '0xapprove' as const
    },
  }
  return {
    client: client as unknown as Parameters<typeof ensurePermit2Approval>[0]['client'],
    wallet,
    reads,
    sent,
  }
}

describe('ensurePermit2Approval', () => {
  test('default: a sufficient allowance sends nothing', async () => {
    const { client, wallet, reads, sent } = setup(10n)
    expect(
      await ensurePermit2Approval({ client, wallet, network: 'eip155:97', owner, token, amount: 10n }),
    ).toBe(undefined)
    expect(reads).toMatchObject([
      { address: token, functionName: 'allowance', args: [owner, PERMIT2_ADDRESS] },
    ])
    expect(sent).toEqual([])
  })

  test('behavior: a short allowance sends approve(Permit2, max) to the token', async () => {
    const { client, wallet, sent } = setup(9n)
    expect(
      await ensurePermit2Approval({ client, wallet, network: 'eip155:97', owner, token, amount: 10n }),
    ).toBe('0xapprove')
    expect(sent).toHaveLength(1)
    expect(sent[0]?.to).toBe(token)
    // approve(address,uint256) selector, Permit2 as spender, max uint256 as amount
    expect(sent[0]?.data).toBe(
      `0x095ea7b3${PERMIT2_ADDRESS.slice(2).toLowerCase().padStart(64, '0')}${'f'.repeat(64)}`,
    )
  })

  test('behavior: a reverted approval is permit2_approval_failed', async () => {
    const { client, wallet } = setup(0n, 'reverted')
    let caught: unknown
    try {
      await ensurePermit2Approval({ client, wallet, network: 'eip155:97', owner, token, amount: 1n })
    } catch (error) {
      caught = error
    }
    expect(isAppError(caught, 'permit2_approval_failed') && caught.context).toEqual({
      network: 'eip155:97',
      token,
    })
  })
})
