import { formatAtomicAmount } from '@tollgate/core'

/** What a wallet URI is built from: the chain family and network, the asset and the amount to pay. */
export type WalletUriInput = {
  family: string
  /** CAIP-2 network id (`eip155:84532`, `solana:…`). */
  network: string
  /** Token contract or mint; null for the chain's native coin. */
  tokenAddress: string | null
  to: string
  atomicAmount: bigint
  decimals: number
}

/**
 * The wallet URI a QR code carries (docs/checkout.md "Wallet URIs"): EIP-681 on EVM chains, Solana Pay
 * on Solana, the bare address elsewhere (a wallet then asks for the amount).
 */
export function toWalletUri(input: WalletUriInput): string {
  if (input.family === 'evm') {
    const chainId = input.network.startsWith('eip155:') ? input.network.slice('eip155:'.length) : null
    const at = chainId ? `@${chainId}` : ''
    if (input.tokenAddress === null) {
      return `ethereum:${input.to}${at}?value=${input.atomicAmount}`
    }
    return `ethereum:${input.tokenAddress}${at}/transfer?address=${input.to}&uint256=${input.atomicAmount}`
  }
  if (input.family === 'solana') {
    // Solana Pay amounts are decimals without needless trailing zeros ("2.5", "1").
    const decimal = formatAtomicAmount(input.atomicAmount, input.decimals)
    const amount = decimal.includes('.') ? decimal.replace(/\.?0+$/, '') : decimal
    const token = input.tokenAddress === null ? '' : `&spl-token=${input.tokenAddress}`
    return `solana:${input.to}?amount=${amount}${token}`
  }
  return input.to
}
