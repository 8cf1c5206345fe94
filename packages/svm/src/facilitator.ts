import type {
  Address,
  Blockhash,
  GetBalanceApi,
  GetSignatureStatusesApi,
  IsBlockhashValidApi,
  KeyPairSigner,
  Rpc,
  SendTransactionApi,
  Signature,
  SimulateTransactionApi,
} from '@solana/kit'
import {
  AppError,
  type AssetRegistry,
  createSettleFailure,
  isSolanaNetwork,
  type Network,
  type PaymentPayload,
  type PaymentRequirements,
  type SchemeFacilitator,
  type SettleContext,
  type SettleResponse,
  type VerifyOptions,
} from '@tollgate/core'
import { findPaymentTransfer, type SolanaLimits } from './check-payment-instructions.js'
import { DEFAULT_LIMITS } from './constants.js'
import { decodePaymentTransaction } from './decode-payment-transaction.js'
import { FeePayerPool } from './fee-payer-pool.js'
import { getSolanaPaymentKey } from './payment-key.js'
import { type RawKey, toAddress, toRawKey } from './raw-keys.js'
import { awaitSettlement, coSignTransaction, sendCoSigned } from './settle-payment.js'
import { SignaturePoller } from './signature-poller.js'
import { type VerifyContext, type VerifyLoad, verifyPayment } from './verify-payment.js'

/** The RPC methods the facilitator calls (standard Solana JSON-RPC). */
export type SolanaFacilitatorRpc = Rpc<
  SimulateTransactionApi & SendTransactionApi & GetSignatureStatusesApi & IsBlockhashValidApi & GetBalanceApi
>

/** Options of {@link createSolanaFacilitator}. */
export type SolanaFacilitatorOptions = {
  /** Per CAIP-2 network: its RPC and the fee-payer keys that co-sign payments. */
  networks: Record<string, { rpc: SolanaFacilitatorRpc; feePayers: readonly KeyPairSigner[] }>
  /** Allowlist: only mints registered for the network with transfer method `solana` are accepted. */
  assets: AssetRegistry
  /** Caps on compute units, priority fee and signers (defaults: `DEFAULT_LIMITS`). */
  limits?: {
    maxComputeUnitLimit?: number
    maxComputeUnitPriceMicroLamports?: bigint | number
    maxSigners?: number
  }
  /** How long settle waits for `confirmed` before answering `settlement_pending`, in ms (default 30,000). */
  confirmTimeoutMs?: number
  /** Interval between status polls while confirming, in ms (default 250). */
  confirmPollIntervalMs?: number
  /** Clock in ms (default `Date.now`). */
  now?: () => number
}

/** One fee payer's SOL balance, for the low-balance alarm. */
export type FeePayerBalance = { network: string; address: Address; lamports: bigint }

/** The Solana scheme's facilitator, plus fee-payer balances for monitoring. */
export type SolanaFacilitator = SchemeFacilitator & {
  /** SOL balance of every fee payer on every network (one `getBalance` each, at `confirmed`). */
  getFeePayerBalances(): Promise<FeePayerBalance[]>
}

type NetworkState = { rpc: SolanaFacilitatorRpc; pool: FeePayerPool; poller: SignaturePoller }

/**
 * Creates the facilitator side of the `solana` scheme (x402 exact on SVM): verifies payments (see
 * `verifyPayment`), and settles them by co-signing as the fee payer named in the transaction,
 * recording the signature, sending with preflight and confirming with a bounded wait.
 */
export function createSolanaFacilitator(options: SolanaFacilitatorOptions): SolanaFacilitator {
  const states = createNetworkStates(options)
  const limits = resolveLimits(options.limits)
  const facilitatorKeys = new Set(
    [...states.values()].flatMap((s) => s.pool.addresses.map((a) => toRawKey(a) as RawKey)),
  )
  const confirmTimeoutMs = options.confirmTimeoutMs ?? 30_000
  const load: VerifyLoad = { active: 0 }
  const contextOf = (network: string): VerifyContext => {
    const state = states.get(network)
    return { rpc: state?.rpc, pool: state?.pool, assets: options.assets, limits, facilitatorKeys, load }
  }

  const verify = (
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    verifyOptions?: VerifyOptions,
  ) =>
    verifyPayment(contextOf(requirements.network), payment, requirements, {
      simulate: verifyOptions?.simulate ?? true,
    })

  const settle = async (
    payment: PaymentPayload,
    requirements: PaymentRequirements,
    context: SettleContext,
  ): Promise<SettleResponse> => {
    const network = requirements.network
    const state = states.get(network)
    if (context.previousTransaction !== undefined && state) {
      return reawaitSettlement(state, payment, context.previousTransaction, { network, confirmTimeoutMs })
    }
    // The simulation happens in the send's preflight, in the same round trip.
    const { response, verified } = await verify(payment, requirements, { simulate: false })
    if (!verified || !state) {
      return createSettleFailure(network, response.invalidReason ?? 'invalid_exact_svm_verification_failed', {
        errorMessage: response.invalidMessage,
        payer: response.payer,
      })
    }
    const payer = toAddress(verified.transfer.authority)
    const signer = state.pool.get(verified.feePayer) as KeyPairSigner
    const coSigned = await coSignTransaction(verified.decoded, signer)
    await context.recordBroadcast(coSigned.signature)
    const sent = await sendCoSigned(state.rpc, coSigned, { payer, network })
    if (!sent.sent) {
      return sent.response
    }
    return awaitSettlement(state.poller, coSigned.signature, {
      blockhash: toAddress(verified.decoded.message.blockhash) as string as Blockhash,
      timeoutMs: confirmTimeoutMs,
      payer,
      network,
    })
  }

  return {
    name: 'solana',
    networks: [...states.keys()] as Network[],
    canHandle: (payment, requirements) =>
      requirements.scheme === 'exact' &&
      states.has(requirements.network) &&
      typeof payment.payload.transaction === 'string',
    getSupportedExtra: (network) => {
      const pool = states.get(network)?.pool
      return pool ? { feePayer: pool.next() } : undefined
    },
    getSigners: (network) => [...(states.get(network)?.pool.addresses ?? [])],
    getSettlementKey: getSolanaPaymentKey,
    verify: async (payment, requirements, verifyOptions) =>
      (await verify(payment, requirements, verifyOptions)).response,
    settle,
    getFeePayerBalances: () => readFeePayerBalances(states),
  }
}

/** Each configured network's RPC, fee-payer pool and signature poller; only Solana networks. */
function createNetworkStates(options: SolanaFacilitatorOptions): Map<string, NetworkState> {
  const now = options.now ?? Date.now
  const states = new Map<string, NetworkState>()
  for (const [network, { rpc, feePayers }] of Object.entries(options.networks)) {
    if (!isSolanaNetwork(network)) {
      throw new AppError('invalid_network', {
        context: { network },
        message: `${network} is not a Solana network`,
      })
    }
    const poller = new SignaturePoller(rpc, { intervalMs: options.confirmPollIntervalMs ?? 250, now })
    states.set(network, { rpc, pool: new FeePayerPool(network, feePayers), poller })
  }
  return states
}

/** The fee-payer drain caps: the options' values, else `DEFAULT_LIMITS`. */
function resolveLimits(limits: SolanaFacilitatorOptions['limits']): SolanaLimits {
  return {
    maxComputeUnitLimit: limits?.maxComputeUnitLimit ?? DEFAULT_LIMITS.maxComputeUnitLimit,
    maxComputeUnitPriceMicroLamports: BigInt(
      limits?.maxComputeUnitPriceMicroLamports ?? DEFAULT_LIMITS.maxComputeUnitPriceMicroLamports,
    ),
    maxSigners: limits?.maxSigners ?? DEFAULT_LIMITS.maxSigners,
  }
}

/** Re-awaits a transaction an earlier settle of this payment broadcast (no new broadcast). */
function reawaitSettlement(
  state: NetworkState,
  payment: PaymentPayload,
  previousTransaction: string,
  options: { network: string; confirmTimeoutMs: number },
): Promise<SettleResponse> {
  const decoded =
    typeof payment.payload.transaction === 'string'
      ? decodePaymentTransaction(payment.payload.transaction)
      : undefined
  const authority = decoded && findPaymentTransfer(decoded.message)?.authority
  const payer = authority ? toAddress(authority) : ''
  return awaitSettlement(state.poller, previousTransaction as Signature, {
    blockhash: decoded ? (toAddress(decoded.message.blockhash) as string as Blockhash) : undefined,
    timeoutMs: options.confirmTimeoutMs,
    payer,
    network: options.network,
  })
}

/** Every fee payer's SOL balance on every network (one `getBalance` each, at `confirmed`). */
function readFeePayerBalances(states: Map<string, NetworkState>): Promise<FeePayerBalance[]> {
  const entries = [...states.entries()].flatMap(([network, state]) =>
    state.pool.addresses.map((address) => ({ network, address, rpc: state.rpc })),
  )
  return Promise.all(
    entries.map(async ({ network, address, rpc }) => {
      try {
        const { value } = await rpc.getBalance(address, { commitment: 'confirmed' }).send()
        return { network, address, lamports: BigInt(value) }
      } catch (cause) {
        throw new AppError('rpc_failed', {
          context: { network, method: 'getBalance' },
          cause,
          message: `getBalance failed on ${network}`,
        })
      }
    }),
  )
}
