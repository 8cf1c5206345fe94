// Error codes of @tollgate/evm (AppError contexts). x402 verify/settle outcomes are data, not
// these: they cover infrastructure (relayer, RPC) and misuse (requirements a scheme cannot sign).
declare module '@tollgate/core' {
  interface AppErrorContexts {
    /** The network's fee (base fee + tip) is above the relayer's `maxFeePerGasCap` (wei). */
    relayer_fee_cap_exceeded: { network: string; baseFeePerGas: string; maxFeePerGasCap: string }
    /** A transaction's gas limit is above the relayer's `gasLimitCap`. */
    relayer_gas_cap_exceeded: { network: string; gas: string; gasLimitCap: string }
    /** The node refused a signed transaction (not a nonce race the relayer could repair). */
    relayer_send_failed: { network: string; from: string; nonce?: number }
    /** No receipt within the caller's bound; the transaction may still be mined. */
    relayer_receipt_timeout: { network: string; hash: string; timeoutMs: number }
    /** Requirements for an EIP-3009 payment without the token's EIP-712 `extra.name`/`extra.version`. */
    evm_missing_eip712_domain: { network: string; asset: string }
    /** Requirements a scheme cannot build or sign (asset method not supported, zero amount, bad address). */
    evm_invalid_requirements: { network: string; asset: string; problem: string }
  }
}

export {}
