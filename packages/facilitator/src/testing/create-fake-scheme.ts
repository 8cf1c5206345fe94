import { createHash } from 'node:crypto'
import {
  createSettleFailure,
  type Network,
  type PaymentPayload,
  type PaymentRequirements,
  REASONS,
  type SchemeFacilitator,
  type SchemeName,
  type SettleResponse,
} from '@tollgate/core'

/** How the fake chain answers the wait for a broadcast transaction. */
export type FakeConfirmation = 'confirmed' | 'reverted' | 'timeout'

/** Options of {@link createFakeScheme}. */
export type FakeSchemeOptions = {
  name?: SchemeName
  networks?: Network[]
  /** Only payloads whose `payload.kind` equals this are handled (default: the scheme name). */
  kind?: string
  signers?: string[]
  extra?: Record<string, unknown>
  /** Awaited after the broadcast is recorded; default: confirmed after `confirmDelayMs`. */
  confirm?: (transaction: string) => Promise<FakeConfirmation>
  confirmDelayMs?: number
}

/** A scheme whose chain is a counter, for tests of routing and exactly-once settlement. */
export type FakeScheme = SchemeFacilitator & {
  /** Every transaction the scheme "sent", in order (a re-await is not a send). */
  readonly broadcasts: string[]
  /** Transactions re-awaited through `previousTransaction`. */
  readonly reawaits: string[]
}

/**
 * A {@link SchemeFacilitator} over a fake chain. Its payload is `{ kind, from, nonce, value }`;
 * the settlement key is `<name>:<network>:<from>:<nonce>`; `value` must equal the required amount
 * and `from` must not be `0x0` (an "unfunded" payer) for a payment to be valid.
 */
export function createFakeScheme(options: FakeSchemeOptions = {}): FakeScheme {
  const name = options.name ?? 'eip3009'
  const kind = options.kind ?? name
  const networks = options.networks ?? ['eip155:84532']
  const broadcasts: string[] = []
  const reawaits: string[] = []
  const confirm =
    options.confirm ??
    ((): Promise<FakeConfirmation> =>
      new Promise((resolve) => setTimeout(() => resolve('confirmed'), options.confirmDelayMs ?? 0)))

  const getKey = (payment: PaymentPayload, requirements: PaymentRequirements) => {
    const { from, nonce } = payment.payload
    return typeof from === 'string' && typeof nonce === 'string'
      ? `${name}:${requirements.network}:${from}:${nonce}`
      : undefined
  }
  const check = (payment: PaymentPayload, requirements: PaymentRequirements) => {
    const payer = String(payment.payload.from)
    if (!getKey(payment, requirements)) {
      return { isValid: false, invalidReason: REASONS.invalidPayload }
    }
    if (payment.payload.value !== requirements.amount) {
      return { isValid: false, invalidReason: REASONS.evmValueMismatch, payer }
    }
    if (payer === '0x0') {
      return { isValid: false, invalidReason: REASONS.evmInsufficientBalance, payer }
    }
    return { isValid: true, payer }
  }

  return {
    name,
    networks,
    broadcasts,
    reawaits,
    canHandle: (payment, requirements) => requirements.scheme === 'exact' && payment.payload.kind === kind,
    getSupportedExtra: () => options.extra,
    getSigners: () => options.signers ?? ['0x000000000000000000000000000000000000fee1'],
    getSettlementKey: getKey,
    getPayer: (payment) => (typeof payment.payload.from === 'string' ? payment.payload.from : undefined),
    verify: async (payment, requirements) => check(payment, requirements),
    async settle(payment, requirements, context): Promise<SettleResponse> {
      const { network } = requirements
      let transaction = context.previousTransaction
      if (transaction) {
        reawaits.push(transaction)
      } else {
        const verdict = check(payment, requirements)
        if (!verdict.isValid) {
          return createSettleFailure(network, verdict.invalidReason ?? REASONS.invalidPayload)
        }
        transaction = `0x${createHash('sha256')
          .update(String(getKey(payment, requirements)))
          .digest('hex')}`
        await context.recordBroadcast(transaction)
        broadcasts.push(transaction)
      }
      const payer = String(payment.payload.from)
      const outcome = await confirm(transaction)
      if (outcome === 'confirmed') {
        return { success: true, transaction, network, payer }
      }
      const reason = outcome === 'timeout' ? REASONS.settlementPending : REASONS.evmTransactionFailed
      return createSettleFailure(network, reason, { transaction, payer })
    },
  }
}

/** Builds a v2 facilitator request for the fake scheme, with overrides. */
export function buildFakeRequest(
  overrides: { requirements?: Partial<PaymentRequirements>; payload?: Record<string, unknown> } = {},
): { x402Version: 2; paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements } {
  const paymentRequirements: PaymentRequirements = {
    scheme: 'exact',
    network: 'eip155:84532',
    amount: '10000',
    asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    payTo: '0x00000000000000000000000000000000000000aa',
    maxTimeoutSeconds: 300,
    extra: { name: 'USDC', version: '2' },
    ...overrides.requirements,
  }
  return {
    x402Version: 2,
    paymentRequirements,
    paymentPayload: {
      x402Version: 2,
      resource: { url: 'https://merchant.example/paid' },
      accepted: paymentRequirements,
      payload: {
        kind: 'eip3009',
        from: '0x00000000000000000000000000000000000000bb',
        nonce: '0x01',
        value: paymentRequirements.amount,
        ...overrides.payload,
      },
    },
  }
}
