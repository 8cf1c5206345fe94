import {
  type Asset,
  getEvmChainId,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type VerifyOptions,
} from '@tollgate/core'
import { type Address, bytesToHex, getAddress, type Hex } from 'viem'
import { permit2Abi, x402ExactPermit2ProxyAbi } from '../abis.js'
import { ERC1271_MAGIC_VALUE, PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY_ADDRESS } from '../constants.js'
import { checkExactRequirements } from '../exact/check-requirements.js'
import { checkTimeWindow, type TimeWindowReasons } from '../exact/check-time-window.js'
import type { ExactEvmContext, ExactEvmNetwork } from '../exact/exact-evm-context.js'
import { type ExactVerification, invalidVerification } from '../exact/exact-verification.js'
import { Permit2Payload } from '../payloads.js'
import { encodeAllowance, encodeBalanceOf, encodeIsValidSignature } from '../rpc/calldata.js'
import { decodeUint, describeRevert, runsCode } from '../rpc/decode.js'
import type { MulticallCall, MulticallResult } from '../rpc/multicall-batcher.js'
import { mapSettlementError } from '../settle/map-send-error.js'
import { classifySignature } from '../signatures/classify-signature.js'
import { getPermit2Digest, type Permit2Message } from '../signatures/typed-data.js'
import { encodeNonceBitmap, encodeProxyPermit2, encodeProxySettle, isNonceUsed } from './permit2-calldata.js'

/** A Permit2 payment that passed verify, with what settle needs to send it. */
export type VerifiedPermit2 = {
  net: ExactEvmNetwork
  asset: Asset
  owner: Address
  message: Permit2Message
  signature: Hex
  contractSigner: boolean
}

/** The verify answer, plus the verified payment when valid. */
export type Permit2Verification = ExactVerification<VerifiedPermit2>

const REVERT_ABI = [...x402ExactPermit2ProxyAbi, ...permit2Abi]

const TIME_WINDOW_REASONS: TimeWindowReasons = {
  expired: { reason: REASONS.permit2DeadlineExpired, message: 'deadline passed or is within 6 seconds' },
  not_yet_valid: { reason: REASONS.permit2NotYetValid },
  too_long: {
    reason: REASONS.permit2DeadlineExpired,
    message: 'deadline is further out than maxTimeoutSeconds allows',
  },
}

/**
 * Verifies an x402 exact Permit2 payment (docs/x402.md, 'Exact on EVM through Permit2'): requirement checks, spender, witness
 * recipient, token, amount, time window (deadline bounded by maxTimeoutSeconds), the signature
 * (locally for EOAs), then proxy presence, balance, Permit2 allowance, nonce bitmap and the
 * `proxy.settle` simulation in one batched aggregate3 eth_call.
 */
export async function verifyPermit2(
  context: ExactEvmContext,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  options: VerifyOptions = {},
): Promise<Permit2Verification> {
  const parsed = Permit2Payload.safeParse(payment.payload)
  if (!parsed.success) {
    return invalidVerification(REASONS.invalidPayload, undefined, parsed.error.issues[0]?.message)
  }
  const auth = parsed.data.permit2Authorization
  const owner = getAddress(auth.from)
  const checked = checkExactRequirements('permit2', payment, requirements, context.assets)
  if ('reason' in checked) {
    return invalidVerification(checked.reason, owner, checked.message)
  }
  const net = context.networks.get(requirements.network)
  if (!net) {
    return invalidVerification(REASONS.invalidNetwork, owner, `network ${requirements.network} is not served`)
  }
  if (auth.spender.toLowerCase() !== X402_EXACT_PERMIT2_PROXY_ADDRESS.toLowerCase()) {
    return invalidVerification(REASONS.permit2Spender, owner)
  }
  if (auth.witness.to.toLowerCase() !== requirements.payTo.toLowerCase()) {
    return invalidVerification(REASONS.permit2RecipientMismatch, owner)
  }
  if (auth.permitted.token.toLowerCase() !== requirements.asset.toLowerCase()) {
    return invalidVerification(REASONS.permit2TokenMismatch, owner)
  }
  const message: Permit2Message = {
    token: getAddress(auth.permitted.token),
    amount: BigInt(auth.permitted.amount),
    spender: X402_EXACT_PERMIT2_PROXY_ADDRESS,
    nonce: BigInt(auth.nonce),
    deadline: BigInt(auth.deadline),
    to: getAddress(auth.witness.to),
    validAfter: BigInt(auth.witness.validAfter),
  }
  if (message.amount !== BigInt(requirements.amount)) {
    return invalidVerification(REASONS.permit2AmountMismatch, owner)
  }
  const window = { validAfter: message.validAfter, validBefore: message.deadline }
  const late = checkTimeWindow(window, context, requirements, TIME_WINDOW_REASONS)
  if (late) {
    return invalidVerification(late.reason, owner, late.message)
  }
  const digest = getPermit2Digest(getEvmChainId(requirements.network), message)
  const signature = await classifySignature({
    digest,
    signer: owner,
    signature: parsed.data.signature as Hex,
    codeCache: net.codeCache,
    allowedFactories: context.allowedFactories,
    rejectHighS: false,
  })
  if (signature.kind === 'invalid' || signature.kind === 'erc6492') {
    // Permit2 payments have no deploy step (as in the reference): counterfactual wallets cannot pay.
    const reason =
      signature.kind === 'invalid' && signature.reason === 'factory_not_allowed'
        ? REASONS.evmEip6492FactoryNotAllowed
        : REASONS.permit2Signature
    return invalidVerification(reason, owner)
  }
  const verified: VerifiedPermit2 = {
    net,
    asset: checked.asset,
    owner,
    message,
    signature: signature.signature,
    contractSigner: signature.kind === 'erc1271',
  }
  const failure = await checkOnChain(verified, bytesToHex(digest), options.simulate !== false)
  if (failure) {
    return invalidVerification(failure.reason, owner, failure.message)
  }
  return { response: { isValid: true, payer: owner }, verified }
}

async function checkOnChain(
  verified: VerifiedPermit2,
  digest: Hex,
  simulate: boolean,
): Promise<{ reason: string; message?: string } | undefined> {
  const { owner, message, signature } = verified
  const calls: MulticallCall[] = [
    { target: X402_EXACT_PERMIT2_PROXY_ADDRESS, callData: encodeProxyPermit2() },
    { target: message.token, callData: encodeBalanceOf(owner) },
    { target: message.token, callData: encodeAllowance(owner, PERMIT2_ADDRESS) },
    { target: PERMIT2_ADDRESS, callData: encodeNonceBitmap(owner, message.nonce) },
  ]
  // Without the simulation, an EOA's code is probed with the same ERC-1271 call (see runsCode):
  // Permit2 asks any signer with code for ERC-1271.
  const probeCode = !simulate && !verified.contractSigner
  if (verified.contractSigner || probeCode) {
    calls.push({ target: owner, callData: encodeIsValidSignature(digest, signature) })
  }
  if (simulate) {
    calls.push({
      target: X402_EXACT_PERMIT2_PROXY_ADDRESS,
      callData: encodeProxySettle(owner, message, signature),
    })
  }
  const interpret = (results: readonly MulticallResult[]) => interpretOnChain(results, verified, simulate)
  const results = await verified.net.batcher.run(calls, {
    conflict: { debit: owner.toLowerCase(), credit: message.to.toLowerCase() },
    acceptShared: (shared) => interpret(shared) === undefined,
  })
  if (probeCode && runsCode(results[4])) {
    return checkOnChain(verified, digest, true)
  }
  return interpret(results)
}

/** The verdict of the batched calls of {@link checkOnChain}: a reason, or undefined when valid. */
function interpretOnChain(
  results: readonly MulticallResult[],
  verified: VerifiedPermit2,
  simulate: boolean,
): { reason: string; message?: string } | undefined {
  const { message } = verified
  const [proxy, balanceResult, allowanceResult, bitmapResult] = results
  if (decodeUint(proxy) === undefined) {
    return { reason: REASONS.permit2ProxyNotDeployed }
  }
  const balance = decodeUint(balanceResult)
  const allowance = decodeUint(allowanceResult)
  if (balance === undefined || allowance === undefined) {
    return { reason: REASONS.evmAssetNotDeployed }
  }
  if (verified.contractSigner) {
    const result = results[4]
    if (!result?.success || !result.returnData.startsWith(ERC1271_MAGIC_VALUE)) {
      return { reason: REASONS.permit2Signature }
    }
  }
  const bitmap = decodeUint(bitmapResult)
  if (bitmap !== undefined && isNonceUsed(bitmap, message.nonce)) {
    return { reason: REASONS.permit2InvalidNonce, message: 'Permit2 nonce already used' }
  }
  if (balance < message.amount) {
    return { reason: REASONS.permit2InsufficientBalance }
  }
  if (allowance < message.amount) {
    return { reason: REASONS.permit2AllowanceRequired }
  }
  const simulation = results[results.length - 1]
  if (simulate && !simulation?.success) {
    const revert = describeRevert(simulation?.returnData ?? '0x', REVERT_ABI)
    const mapped = mapSettlementError('permit2', revert)
    const reason = mapped === REASONS.evmTransactionFailed ? REASONS.permit2SimulationFailed : mapped
    return { reason, message: revert }
  }
  return undefined
}
