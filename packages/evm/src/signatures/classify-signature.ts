import { type Address, type Hex, isErc6492Signature, parseErc6492Signature } from 'viem'
import type { CodeCache } from './code-cache.js'
import { recoverSigner } from './recover-signer.js'

/**
 * How a payment signature gets checked:
 * - `ecdsa`: recovered locally and matched the signer (no RPC at all),
 * - `erc1271`: the signer has code, so `isValidSignature(digest, signature)` runs in the batch,
 * - `erc6492`: a counterfactual wallet from an allowlisted factory; deploy first, then ERC-1271,
 * - `invalid`: with the reason to report.
 */
export type SignatureCheck =
  | { kind: 'ecdsa'; signature: Hex }
  | { kind: 'erc1271'; signature: Hex }
  | { kind: 'erc6492'; signature: Hex; factory: Address; factoryData: Hex }
  | { kind: 'invalid'; reason: 'signature' | 'factory_not_allowed' }

/** Inputs of {@link classifySignature}. */
export type ClassifySignatureParameters = {
  digest: Uint8Array
  signer: Address
  signature: Hex
  codeCache: CodeCache
  /** Lowercase factory addresses that may deploy ERC-6492 wallets (fail closed when empty). */
  allowedFactories: readonly string[]
  /** EIP-3009 tokens reject malleable high-s signatures; Permit2 does not. */
  rejectHighS: boolean
}

/**
 * Routes a signature: ECDSA recovery first (the common EOA case costs no RPC), then the signer's
 * code (cached) decides ERC-1271; ERC-6492 wrappers only for allowlisted factories.
 */
export async function classifySignature(parameters: ClassifySignatureParameters): Promise<SignatureCheck> {
  const { digest, signer, signature, codeCache } = parameters
  if (isErc6492Signature(signature)) {
    const parsed = parseErc6492Signature(signature)
    if (await codeCache.hasCode(signer)) {
      return { kind: 'erc1271', signature: parsed.signature }
    }
    const factory = parsed.address
    if (!factory || !parsed.data || !parameters.allowedFactories.includes(factory.toLowerCase())) {
      return { kind: 'invalid', reason: 'factory_not_allowed' }
    }
    return { kind: 'erc6492', signature: parsed.signature, factory, factoryData: parsed.data }
  }
  const recovered = recoverSigner(digest, signature, { rejectHighS: parameters.rejectHighS })
  if (recovered === signer.toLowerCase()) {
    return { kind: 'ecdsa', signature }
  }
  // No ECDSA match: only a contract can still accept it (EIP-7702 delegated EOAs have code too).
  if (await codeCache.hasCode(signer)) {
    return { kind: 'erc1271', signature }
  }
  return { kind: 'invalid', reason: 'signature' }
}
