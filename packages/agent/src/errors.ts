/** The spend-policy rule that refused a payment. */
export type PolicyRule =
  | 'host'
  | 'network'
  | 'asset'
  | 'payee'
  | 'max_per_payment'
  | 'max_per_day'
  | 'approval'

declare module '@tollgate/core' {
  interface AppErrorContexts {
    /** The spend policy refused to pay; `rule` says which rule. */
    payment_policy_refused: { rule: PolicyRule; url: string; detail?: string }
    /** The 402 offers nothing this agent holds a key for. */
    payment_unpayable: { url: string; offered: string[] }
    /** The request already carried a payment header and still got a 402: never pay twice. */
    payment_already_attempted: { url: string }
    /** The payer's balance is below the price on every acceptable option. */
    payment_insufficient_balance: {
      url: string
      network: string
      asset: string
      required: string
      available: string
    }
    /** A 402 without a readable `PAYMENT-REQUIRED` header or v1 JSON body. */
    payment_required_invalid: { url: string }
    /** The one-time Permit2 approval could not be sent or did not confirm. */
    permit2_approval_failed: { network: string; token: string }
  }
}
