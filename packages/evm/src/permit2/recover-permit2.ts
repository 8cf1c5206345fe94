import { REASONS } from '@tollgate/core'
import { type Address, decodeFunctionData, getAddress, type Hash, type Hex, parseAbiItem } from 'viem'
import { x402ExactPermit2ProxyAbi } from '../abis.js'
import { PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import type { ExactEvmNetwork } from '../exact/exact-evm-context.js'
import type { Permit2Authorization } from '../payloads.js'
import { decodeUint } from '../rpc/decode.js'
import type { PaymentProbe, PaymentUse } from '../settle/recover-settlement.js'
import type { Permit2Message } from '../signatures/typed-data.js'
import { encodeNonceBitmap, isNonceUsed } from './permit2-calldata.js'

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const nonceInvalidation = parseAbiItem(
  'event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)',
)

/**
 * The chain reads that recover a Permit2 settlement: the owner's nonce bitmap, expiry after
 * `deadline` (Permit2 reverts with `SignatureExpired` once `block.timestamp > deadline`), and the
 * logs that show where the nonce went. Permit2 logs nothing when it spends a nonce, so a use is a
 * token `Transfer(owner, to, amount)` whose transaction called the exact proxy with this very
 * permit; the owner's `UnorderedNonceInvalidation` covering the nonce voids the payment.
 */
export function createPermit2Probe(net: ExactEvmNetwork, authorization: Permit2Authorization): PaymentProbe {
  const owner = getAddress(authorization.from)
  const message: Permit2Message = {
    token: getAddress(authorization.permitted.token),
    amount: BigInt(authorization.permitted.amount),
    spender: X402_EXACT_PERMIT2_PROXY_ADDRESS,
    nonce: BigInt(authorization.nonce),
    deadline: BigInt(authorization.deadline),
    to: getAddress(authorization.witness.to),
    validAfter: BigInt(authorization.witness.validAfter),
  }
  return {
    async isUsed() {
      const [bitmap] = await net.batcher.run(
        [{ target: PERMIT2_ADDRESS, callData: encodeNonceBitmap(owner, message.nonce) }],
        { conflict: { debit: owner.toLowerCase(), credit: message.to.toLowerCase() } },
      )
      const word = decodeUint(bitmap)
      return word === undefined ? undefined : isNonceUsed(word, message.nonce)
    },
    isExpiredAt: (chainTime) => chainTime > message.deadline,
    async findUses(fromBlock, toBlock) {
      const [transfers, invalidations] = await Promise.all([
        net.client.getLogs({
          address: message.token,
          event: transferEvent,
          args: { from: owner, to: message.to },
          fromBlock,
          toBlock,
        }),
        net.client.getLogs({
          address: PERMIT2_ADDRESS,
          event: nonceInvalidation,
          args: { owner },
          fromBlock,
          toBlock,
        }),
      ])
      const candidates = transfers.filter((log) => log.args.value === message.amount).reverse()
      for (const log of candidates) {
        const transaction = await net.client.getTransaction({ hash: log.transactionHash })
        if (settlesPermit(transaction.to, transaction.input, owner, message)) {
          return [{ kind: 'transfer', transaction: log.transactionHash as Hash }]
        }
      }
      return invalidations
        .filter(
          (log) => log.args.word === message.nonce >> 8n && isNonceUsed(log.args.mask ?? 0n, message.nonce),
        )
        .map((): PaymentUse => ({ kind: 'void', message: 'the payer invalidated the Permit2 nonce' }))
    },
    reasons: { expired: REASONS.permit2DeadlineExpired, voided: REASONS.permit2InvalidNonce },
  }
}

/** Whether a transaction called the exact proxy's `settle`/`settleWithPermit` with this permit. */
function settlesPermit(to: Address | null, input: Hex, owner: Address, message: Permit2Message): boolean {
  if (to?.toLowerCase() !== X402_EXACT_PERMIT2_PROXY_ADDRESS.toLowerCase()) {
    return false
  }
  let call: ReturnType<typeof decodeFunctionData<typeof x402ExactPermit2ProxyAbi>>
  try {
    call = decodeFunctionData({ abi: x402ExactPermit2ProxyAbi, data: input })
  } catch {
    return false
  }
  const args =
    call.functionName === 'settle'
      ? call.args
      : call.functionName === 'settleWithPermit'
        ? call.args.slice(1)
        : undefined
  const [permit, signer, witness] = (args ?? []) as [
    { permitted: { token: Address; amount: bigint }; nonce: bigint } | undefined,
    Address | undefined,
    { to: Address } | undefined,
  ]
  return (
    permit !== undefined &&
    signer?.toLowerCase() === owner.toLowerCase() &&
    permit.nonce === message.nonce &&
    permit.permitted.token.toLowerCase() === message.token.toLowerCase() &&
    permit.permitted.amount === message.amount &&
    witness?.to.toLowerCase() === message.to.toLowerCase()
  )
}
