import {
  type Asset,
  getEvmChainId,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type VerifyOptions,
} from '@tollgate/core'
import { bytesToHex, getAddress, type Hex } from 'viem'
import { ERC1271_MAGIC_VALUE } from '../constants.js'
import { checkExactRequirements } from '../exact/check-requirements.js'
import { checkTimeWindow, type TimeWindowReasons } from '../exact/check-time-window.js'
import type { ExactEvmContext, ExactEvmNetwork } from '../exact/exact-evm-context.js'
import { type ExactVerification, invalidVerification } from '../exact/exact-verification.js'
import { Eip3009Payload } from '../payloads.js'
import { encodeBalanceOf, encodeIsValidSignature } from '../rpc/calldata.js'
import { decodeBool, decodeUint, describeRevert, runsCode } from '../rpc/decode.js'
import type { MulticallCall, MulticallResult } from '../rpc/multicall-batcher.js'
import { hasCodeNow } from '../settle/deploy-counterfactual-wallet.js'
import { classifySignature, type SignatureCheck } from '../signatures/classify-signature.js'
import { type Eip3009Message, getEip3009Digest } from '../signatures/typed-data.js'
import { encodeAuthorizationState, encodeTransferWithAuthorization } from './eip3009-calldata.js'

/** A payment that passed verify, with what settle needs to send it. */
export type VerifiedEip3009 = {
  net: ExactEvmNetwork
  asset: Asset
  message: Eip3009Message
  signature: SignatureCheck & { kind: 'ecdsa' | 'erc1271' | 'erc6492' }
}

/** The verify answer, plus the verified payment when valid. */
export type Eip3009Verification = ExactVerification<VerifiedEip3009>

const TIME_WINDOW_REASONS: TimeWindowReasons = {
  expired: { reason: REASONS.evmValidBefore, message: 'authorization expired or expires within 6 seconds' },
  not_yet_valid: { reason: REASONS.evmValidAfter, message: 'authorization is not valid yet' },
  too_long: {
    reason: REASONS.evmValidBefore,
    message: 'validBefore is further out than maxTimeoutSeconds allows',
  },
}

/**
 * Verifies an x402 exact EIP-3009 payment (docs/x402.md, 'Exact on EVM through EIP-3009'): requirement checks, recipient,
 * value, time window (bounded by maxTimeoutSeconds), the signature (locally for EOAs), then nonce
 * state, balance and the transfer simulation in one batched aggregate3 eth_call.
 */
export async function verifyEip3009(
  context: ExactEvmContext,
  payment: PaymentPayload,
  requirements: PaymentRequirements,
  options: VerifyOptions = {},
): Promise<Eip3009Verification> {
  const parsed = Eip3009Payload.safeParse(payment.payload)
  if (!parsed.success) {
    return invalidVerification(REASONS.invalidPayload, undefined, parsed.error.issues[0]?.message)
  }
  const { authorization } = parsed.data
  const payer = getAddress(authorization.from)
  const checked = checkExactRequirements('eip3009', payment, requirements, context.assets)
  if ('reason' in checked) {
    return invalidVerification(checked.reason, payer, checked.message)
  }
  const { asset } = checked
  const net = context.networks.get(requirements.network)
  if (!net) {
    return invalidVerification(REASONS.invalidNetwork, payer, `network ${requirements.network} is not served`)
  }
  const domainReason = checkDomain(asset, requirements)
  if (domainReason) {
    return invalidVerification(domainReason, payer)
  }
  if (authorization.to.toLowerCase() !== requirements.payTo.toLowerCase()) {
    return invalidVerification(REASONS.evmRecipientMismatch, payer)
  }
  const message: Eip3009Message = {
    from: payer,
    to: getAddress(authorization.to),
    value: BigInt(authorization.value),
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce as Hex,
  }
  if (message.value !== BigInt(requirements.amount)) {
    return invalidVerification(REASONS.evmValueMismatch, payer)
  }
  const late = checkTimeWindow(message, context, requirements, TIME_WINDOW_REASONS)
  if (late) {
    return invalidVerification(late.reason, payer, late.message)
  }
  const digest = getEip3009Digest(
    {
      name: String(requirements.extra?.name),
      version: String(requirements.extra?.version),
      chainId: getEvmChainId(requirements.network),
      verifyingContract: getAddress(asset.address),
    },
    message,
  )
  const signature = await classifySignature({
    digest,
    signer: payer,
    signature: parsed.data.signature as Hex,
    codeCache: net.codeCache,
    allowedFactories: context.allowedFactories,
    rejectHighS: true,
  })
  if (signature.kind === 'invalid') {
    return invalidVerification(
      signature.reason === 'factory_not_allowed' ? REASONS.evmEip6492FactoryNotAllowed : REASONS.evmSignature,
      payer,
    )
  }
  const reason = await checkOnChain(
    net,
    asset,
    message,
    signature,
    bytesToHex(digest),
    options.simulate !== false,
  )
  if (reason) {
    return invalidVerification(reason.reason, payer, reason.message)
  }
  return { response: { isValid: true, payer }, verified: { net, asset, message, signature } }
}

// Tollgate pins each token's EIP-712 domain in the asset registry; a payment signed over another
// domain would fail on-chain (docs/x402.md, 'Exact on EVM through EIP-3009'), so say which part differs before any RPC.
function checkDomain(asset: Asset, requirements: PaymentRequirements): string | undefined {
  const name = requirements.extra?.name
  const version = requirements.extra?.version
  if (typeof name !== 'string' || typeof version !== 'string' || !name || !version) {
    return REASONS.evmMissingEip712Domain
  }
  if (asset.eip712 && asset.eip712.name !== name) {
    return REASONS.evmTokenNameMismatch
  }
  if (asset.eip712 && asset.eip712.version !== version) {
    return REASONS.evmTokenVersionMismatch
  }
  return undefined
}

async function checkOnChain(
  net: ExactEvmNetwork,
  asset: Asset,
  message: Eip3009Message,
  signature: VerifiedEip3009['signature'],
  digest: Hex,
  simulate: boolean,
): Promise<{ reason: string; message?: string } | undefined> {
  const token = getAddress(asset.address)
  const calls: MulticallCall[] = []
  if (signature.kind === 'erc6492') {
    calls.push({ target: signature.factory, callData: signature.factoryData })
  }
  const signatureIndex = calls.length
  // Without the simulation, an EOA's code is probed with the same ERC-1271 call (see runsCode).
  const probeCode = !simulate && signature.kind === 'ecdsa'
  if (signature.kind !== 'ecdsa' || probeCode) {
    calls.push({ target: message.from, callData: encodeIsValidSignature(digest, signature.signature) })
  }
  const stateIndex = calls.length
  calls.push({ target: token, callData: encodeAuthorizationState(message.from, message.nonce) })
  calls.push({ target: token, callData: encodeBalanceOf(message.from) })
  if (simulate) {
    calls.push({ target: token, callData: encodeTransferWithAuthorization(message, signature.signature) })
  }
  const interpret = (results: readonly MulticallResult[]) =>
    interpretOnChain(results, message, signature.kind, signatureIndex, stateIndex, simulate)
  const results = await net.batcher.run(calls, {
    conflict: {
      debit: message.from.toLowerCase(),
      credit: message.to.toLowerCase(),
      exclusive: signature.kind === 'erc6492',
    },
    acceptShared: (shared) => interpret(shared) === undefined,
  })
  if (probeCode && runsCode(results[signatureIndex])) {
    return checkOnChain(net, asset, message, signature, digest, true)
  }
  // The factory reverts once the wallet exists: if another settle deployed it since the code cache
  // said "no code", the wrapped signature is checked as ERC-1271 (settle then finds it deployed).
  if (signature.kind === 'erc6492' && !results[0]?.success && (await hasCodeNow(net, message.from))) {
    const deployed = { kind: 'erc1271' as const, signature: signature.signature }
    return checkOnChain(net, asset, message, deployed, digest, simulate)
  }
  return interpret(results)
}

/** The verdict of the batched calls of {@link checkOnChain}: a reason, or undefined when valid. */
function interpretOnChain(
  results: readonly MulticallResult[],
  message: Eip3009Message,
  kind: VerifiedEip3009['signature']['kind'],
  signatureIndex: number,
  stateIndex: number,
  simulate: boolean,
): { reason: string; message?: string } | undefined {
  if (kind === 'erc6492' && !results[0]?.success) {
    return { reason: REASONS.evmSmartWalletDeploymentFailed }
  }
  if (kind !== 'ecdsa') {
    const result = results[signatureIndex]
    if (!result?.success || !result.returnData.startsWith(ERC1271_MAGIC_VALUE)) {
      return { reason: REASONS.evmSignature }
    }
  }
  const used = decodeBool(results[stateIndex])
  const balance = decodeUint(results[stateIndex + 1])
  if (balance === undefined) {
    return { reason: REASONS.evmAssetNotDeployed }
  }
  if (used === undefined) {
    return { reason: REASONS.evmEip3009NotSupported }
  }
  if (used) {
    return { reason: REASONS.evmNonceAlreadyUsed }
  }
  if (balance < message.value) {
    return { reason: REASONS.evmInsufficientBalance }
  }
  const simulation = results[stateIndex + 2]
  if (simulate && !simulation?.success) {
    return { reason: REASONS.evmSimulationFailed, message: describeRevert(simulation?.returnData ?? '0x') }
  }
  return undefined
}
