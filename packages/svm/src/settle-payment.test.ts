import {
  type Base64EncodedWireTransaction,
  getSolanaErrorFromJsonRpcError,
  type Rpc,
  type SendTransactionApi,
  type Signature,
} from '@solana/kit'
import { REASONS } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { sendCoSigned } from './settle-payment.js'

const transaction = { wire: 'AA==' as Base64EncodedWireTransaction, signature: 'sig' as Signature }
const who = { payer: 'payer', network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }
const failingWith = (error: unknown) =>
  ({
    sendTransaction: () => ({
      send: async () => {
        throw error
      },
    }),
  }) as unknown as Rpc<SendTransactionApi>
const preflight = (err: unknown) =>
  getSolanaErrorFromJsonRpcError({
    code: -32002,
    message: 'Transaction simulation failed',
    data: { err, logs: [], accounts: null, unitsConsumed: 0, returnData: null },
  })

describe('sendCoSigned', () => {
  test('default: a sent transaction is sent', async () => {
    const rpc = { sendTransaction: () => ({ send: async () => 'sig' }) } as unknown as Rpc<SendTransactionApi>
    expect(await sendCoSigned(rpc, transaction, who)).toEqual({ sent: true })
  })

  test('behavior: a transport error may have been sent, so it is awaited, not failed', async () => {
    expect(await sendCoSigned(failingWith(new Error('socket hang up')), transaction, who)).toEqual({
      sent: true,
    })
  })

  test('behavior: an already processed transaction is awaited', async () => {
    expect(await sendCoSigned(failingWith(preflight('AlreadyProcessed')), transaction, who)).toEqual({
      sent: true,
    })
  })

  test.each([
    ['an expired blockhash', preflight('BlockhashNotFound'), REASONS.svmBlockHeightExceeded],
    ['a failing preflight', preflight({ InstructionError: [2, { Custom: 1 }] }), REASONS.svmSimulationFailed],
    [
      'a signature verification failure',
      getSolanaErrorFromJsonRpcError({ code: -32003, message: 'Transaction signature verification failure' }),
      REASONS.svmTransactionFailed,
    ],
  ])('behavior: %s is a final refusal, nothing was broadcast', async (_name, error, reason) => {
    const result = await sendCoSigned(failingWith(error), transaction, who)
    expect(result).toMatchObject({
      sent: false,
      response: {
        success: false,
        errorReason: reason,
        transaction: '',
        network: who.network,
        payer: 'payer',
      },
    })
  })
})
