import { getBase58Encoder, getBase64Decoder } from '@solana/kit'
import {
  computeTransactionFee,
  type DecodedTransaction,
  decodeWireMessage,
  decodeWireTransaction,
  replaceRecentBlockhash,
  toLatin1,
} from './decode-wire-transaction.js'
import { formatAccount } from './format-account.js'
import { formatInnerInstructions, formatTransaction } from './format-transaction.js'
import { createInvalidParamsError, RpcError, RpcErrorCode } from './rpc-error.js'
import {
  decodeBinary,
  readAddress,
  readConfig,
  readString,
  toJsonInteger,
  withContext,
} from './rpc-params.js'
import type { RpcHandler } from './rpc-server.js'
import type { ExecutionResult, SolanaChain } from './solana-chain.js'
import { describeTransactionError } from './transaction-error.js'

// The RpcSimulateTransactionResult shape shared by simulateTransaction and the preflight error's `data`.
function formatSimulation(
  chain: SolanaChain,
  decoded: DecodedTransaction,
  execution: ExecutionResult,
  options: { accounts?: unknown; innerInstructions?: boolean; replacementBlockhash?: unknown },
) {
  const accountsConfig = options.accounts as { addresses?: unknown[]; encoding?: string } | undefined
  const accounts =
    accountsConfig && execution.err === null
      ? (accountsConfig.addresses ?? []).map((a) => {
          const address = readAddress(a)
          const state = execution.postAccounts.get(address) ?? null
          return formatAccount(chain, state, { encoding: accountsConfig.encoding ?? 'base64' })
        })
      : null
  return {
    err: execution.err,
    logs: execution.logs,
    accounts,
    unitsConsumed: toJsonInteger(execution.unitsConsumed),
    returnData: execution.returnData
      ? {
          programId: execution.returnData.programId,
          data: [getBase64Decoder().decode(execution.returnData.data), 'base64'],
        }
      : null,
    innerInstructions: options.innerInstructions
      ? formatInnerInstructions(
          chain.resolveAccountKeys(decoded).accountKeys,
          execution.innerInstructions,
          true,
        )
      : null,
    replacementBlockhash: options.replacementBlockhash ?? null,
  }
}

function simulateTransaction(chain: SolanaChain, params: unknown[]) {
  const config = readConfig(params, 1)
  let decoded = decodeWireTransaction(decodeBinary(readString(params, 0), config.encoding))
  if (config.sigVerify === true && config.replaceRecentBlockhash === true) {
    throw createInvalidParamsError('Invalid params: sigVerify may not be used with replaceRecentBlockhash')
  }
  let replacementBlockhash: unknown
  if (config.replaceRecentBlockhash === true) {
    const latest = chain.getLatestBlockhash()
    replacementBlockhash = latest
    decoded = replaceRecentBlockhash(decoded, new Uint8Array(getBase58Encoder().encode(latest.blockhash)))
  }
  const execution = chain.simulate(decoded, {
    sigVerify: config.sigVerify === true,
    innerInstructions: config.innerInstructions === true,
    postAccounts: config.accounts !== undefined && config.accounts !== null,
  })
  if (config.sigVerify === true && execution.err === 'SignatureFailure') {
    throw new RpcError(
      RpcErrorCode.transactionSignatureVerificationFailure,
      'Transaction signature verification failure',
    )
  }
  const options = {
    accounts: config.accounts,
    innerInstructions: config.innerInstructions === true,
    replacementBlockhash,
  }
  return withContext(chain, formatSimulation(chain, decoded, execution, options))
}

/**
 * sendTransaction: with preflight (the default) a failing simulation is refused with -32002 and the simulation
 * in `data`; with `skipPreflight` the transaction is executed as is and a failure shows up in its status.
 */
function sendTransaction(chain: SolanaChain, params: unknown[]): string {
  const config = readConfig(params, 1)
  const decoded = decodeWireTransaction(decodeBinary(readString(params, 0), config.encoding))
  if (config.skipPreflight !== true) {
    const preflight = chain.simulate(decoded, { sigVerify: true, innerInstructions: false })
    if (preflight.err === 'SignatureFailure') {
      throw new RpcError(
        RpcErrorCode.transactionSignatureVerificationFailure,
        'Transaction signature verification failure',
      )
    }
    if (preflight.err !== null) {
      throw new RpcError(
        RpcErrorCode.sendTransactionPreflightFailure,
        `Transaction simulation failed: ${describeTransactionError(preflight.err)}`,
        formatSimulation(chain, decoded, preflight, {}),
      )
    }
  }
  chain.execute(decoded)
  return decoded.signature
}

function getSignatureStatuses(chain: SolanaChain, params: unknown[]) {
  const signatures = params[0]
  if (!Array.isArray(signatures) || signatures.length > 256) {
    throw createInvalidParamsError('Invalid params: Too many inputs provided; max 256')
  }
  const value = signatures.map((signature) => {
    const record = typeof signature === 'string' ? chain.getRecord(signature) : undefined
    // Every landed transaction is final at once: there is one in-process validator and no fork.
    return record
      ? {
          slot: record.slot,
          confirmations: null,
          err: record.err,
          status: record.err === null ? { Ok: null } : { Err: record.err },
          confirmationStatus: 'finalized',
        }
      : null
  })
  return withContext(chain, value)
}

function getFeeForMessage(chain: SolanaChain, params: unknown[]) {
  const bytes = decodeBinary(readString(params, 0), 'base64')
  const message = decodeWireMessage(bytes)
  if (!message) {
    throw createInvalidParamsError('Invalid params: invalid message')
  }
  const blockhash = toLatin1(bytes.subarray(message.blockhashOffset, message.blockhashOffset + 32))
  return withContext(chain, chain.isBlockhashKeyValid(blockhash) ? computeTransactionFee(message) : null)
}

function getSignaturesForAddress(chain: SolanaChain, params: unknown[]) {
  const address = readAddress(params[0])
  const config = readConfig(params, 1)
  const limit = typeof config.limit === 'number' ? config.limit : 1000
  if (limit < 1 || limit > 1000) {
    throw createInvalidParamsError('Invalid params: limit must be between 1 and 1000')
  }
  let signatures = chain.getSignaturesFor(address)
  if (typeof config.before === 'string') {
    const index = signatures.indexOf(config.before)
    signatures = index === -1 ? [] : signatures.slice(index + 1)
  }
  if (typeof config.until === 'string') {
    const index = signatures.indexOf(config.until)
    signatures = index === -1 ? signatures : signatures.slice(0, index)
  }
  return signatures.slice(0, limit).flatMap((signature) => {
    const record = chain.getRecord(signature)
    if (!record) {
      return []
    }
    const memos = record.logs.flatMap((line) => {
      const match = /^Program log: Memo \(len (\d+)\): "(.*)"$/.exec(line)
      return match ? [`[${match[1]}] ${match[2]}`] : []
    })
    return [
      {
        signature,
        slot: record.slot,
        err: record.err,
        memo: memos.length > 0 ? memos.join('; ') : null,
        blockTime: record.blockTime,
        confirmationStatus: 'finalized',
      },
    ]
  })
}

/** Transaction methods: simulate, send, statuses, history and fees. */
export function createTransactionMethods(chain: SolanaChain): Record<string, RpcHandler> {
  return {
    simulateTransaction: (params) => simulateTransaction(chain, params),
    sendTransaction: (params) => sendTransaction(chain, params),
    getSignatureStatuses: (params) => getSignatureStatuses(chain, params),
    getSignaturesForAddress: (params) => getSignaturesForAddress(chain, params),
    getFeeForMessage: (params) => getFeeForMessage(chain, params),
    getTransaction: (params) => getTransaction(chain, params),
  }
}

// Base58 signature parameter; malformed ones are -32602 as on the real RPC.
function readSignature(value: unknown): string {
  let length = 0
  try {
    length = typeof value === 'string' ? getBase58Encoder().encode(value).length : 0
  } catch {
    length = 0
  }
  if (length !== 64) {
    throw createInvalidParamsError('Invalid param: Invalid')
  }
  return value as string
}

function getTransaction(chain: SolanaChain, params: unknown[]) {
  const signature = readSignature(params[0])
  const config = readConfig(params, 1)
  const encoding = config.encoding ?? 'json'
  if (encoding !== 'json' && encoding !== 'jsonParsed' && encoding !== 'base64' && encoding !== 'base58') {
    throw createInvalidParamsError(`Invalid params: unsupported encoding: ${String(encoding)}`)
  }
  const record = chain.getRecord(signature)
  if (!record) {
    return null
  }
  const maxVersion = config.maxSupportedTransactionVersion
  if (
    record.decoded.message.version !== 'legacy' &&
    (typeof maxVersion !== 'number' || maxVersion < record.decoded.message.version)
  ) {
    throw new RpcError(
      RpcErrorCode.unsupportedTransactionVersion,
      `Transaction version (${record.decoded.message.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${record.decoded.message.version}`,
    )
  }
  return formatTransaction(record, encoding, maxVersion !== undefined)
}
