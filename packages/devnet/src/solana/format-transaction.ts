import { type Address, getBase58Decoder, getBase64Decoder } from '@solana/kit'
import type { InnerInstructionRecord, TransactionRecord } from './solana-chain.js'
import { isTokenProgram, TOKEN_2022_PROGRAM, toUiTokenAmount } from './token-layout.js'

const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'

type Instruction = {
  programIdIndex: number
  accounts: number[]
  data: Uint8Array
  stackHeight: number | null
}

function readAmount(data: Uint8Array): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true)
}

function parseTokenInstruction(keys: Address[], ix: Instruction): unknown {
  const at = (i: number) => keys[ix.accounts[i] ?? -1]
  if (ix.data[0] === 12 && ix.data.length >= 10) {
    const mint = at(1)
    return {
      type: 'transferChecked',
      info: {
        source: at(0),
        mint,
        destination: at(2),
        authority: at(3),
        tokenAmount: toUiTokenAmount(readAmount(ix.data), ix.data[9] ?? 0),
      },
    }
  }
  if (ix.data[0] === 3 && ix.data.length >= 9) {
    return {
      type: 'transfer',
      info: { source: at(0), destination: at(1), authority: at(2), amount: readAmount(ix.data).toString() },
    }
  }
  return null
}

/**
 * Renders one instruction in the RPC's `jsonParsed` form: parsed for the instructions Tollgate cares about
 * (SPL transfer/transferChecked, system transfer, memo), partially decoded (`programId`, `accounts`, `data`) otherwise.
 */
export function formatParsedInstruction(keys: Address[], ix: Instruction): unknown {
  const programId = keys[ix.programIdIndex]
  const stackHeight = ix.stackHeight
  if (programId && isTokenProgram(programId)) {
    const parsed = parseTokenInstruction(keys, ix)
    if (parsed) {
      return {
        program: programId === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token',
        programId,
        parsed,
        stackHeight,
      }
    }
  }
  if (programId === MEMO_PROGRAM) {
    return { program: 'spl-memo', programId, parsed: new TextDecoder().decode(ix.data), stackHeight }
  }
  const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength)
  if (programId === SYSTEM_PROGRAM && ix.data.length === 12 && view.getUint32(0, true) === 2) {
    const info = {
      source: keys[ix.accounts[0] ?? -1],
      destination: keys[ix.accounts[1] ?? -1],
      lamports: view.getBigUint64(4, true),
    }
    return { program: 'system', programId, parsed: { type: 'transfer', info }, stackHeight }
  }
  return {
    programId,
    accounts: ix.accounts.map((i) => keys[i]),
    data: getBase58Decoder().decode(ix.data),
    stackHeight,
  }
}

/** Inner instructions in `json` (compiled) or `jsonParsed` form. */
export function formatInnerInstructions(
  keys: Address[],
  groups: { index: number; instructions: InnerInstructionRecord[] }[],
  parsed: boolean,
): unknown[] {
  return groups.map((group) => ({
    index: group.index,
    instructions: group.instructions.map((ix) =>
      parsed
        ? formatParsedInstruction(keys, ix)
        : {
            programIdIndex: ix.programIdIndex,
            accounts: ix.accounts,
            data: getBase58Decoder().decode(ix.data),
            stackHeight: ix.stackHeight,
          },
    ),
  }))
}

function isWritable(record: TransactionRecord, index: number): boolean {
  const { header, staticAccounts } = record.decoded.message
  if (index >= staticAccounts.length) {
    return index < staticAccounts.length + record.loadedAddresses.writable.length
  }
  if (index < header.numSignerAccounts) {
    return index < header.numSignerAccounts - header.numReadonlySignerAccounts
  }
  return index < staticAccounts.length - header.numReadonlyNonSignerAccounts
}

function formatMessage(record: TransactionRecord, parsed: boolean): unknown {
  const { message } = record.decoded
  const instructions = message.instructions.map((ix) => ({
    programIdIndex: ix.programAddressIndex,
    accounts: ix.accountIndices ?? [],
    data: new Uint8Array(ix.data ?? []),
    stackHeight: null,
  }))
  const lookups = 'addressTableLookups' in message ? (message.addressTableLookups ?? []) : []
  const addressTableLookups =
    message.version === 'legacy'
      ? {}
      : {
          addressTableLookups: lookups.map((l) => ({
            accountKey: l.lookupTableAddress,
            writableIndexes: l.writableIndexes,
            readonlyIndexes: l.readonlyIndexes,
          })),
        }
  if (parsed) {
    const staticCount = message.staticAccounts.length
    return {
      accountKeys: record.accountKeys.map((pubkey, i) => ({
        pubkey,
        signer: i < message.header.numSignerAccounts,
        source: i < staticCount ? 'transaction' : 'lookupTable',
        writable: isWritable(record, i),
      })),
      recentBlockhash: message.lifetimeToken,
      instructions: instructions.map((ix) => formatParsedInstruction(record.accountKeys, ix)),
      ...addressTableLookups,
    }
  }
  return {
    header: {
      numRequiredSignatures: message.header.numSignerAccounts,
      numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
    },
    accountKeys: message.staticAccounts,
    recentBlockhash: message.lifetimeToken,
    instructions: instructions.map((ix) => ({ ...ix, data: getBase58Decoder().decode(ix.data) })),
    ...addressTableLookups,
  }
}

/** The `meta` object of getTransaction (UiTransactionStatusMeta). */
export function formatTransactionMeta(record: TransactionRecord, parsed: boolean): unknown {
  return {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: formatInnerInstructions(record.accountKeys, record.innerInstructions, parsed),
    logMessages: record.logs,
    preTokenBalances: record.preTokenBalances,
    postTokenBalances: record.postTokenBalances,
    rewards: [],
    ...(parsed ? {} : { loadedAddresses: record.loadedAddresses }),
    ...(record.returnData
      ? {
          returnData: {
            programId: record.returnData.programId,
            data: [getBase64Decoder().decode(record.returnData.data), 'base64'],
          },
        }
      : {}),
    computeUnitsConsumed: record.unitsConsumed,
  }
}

/** A getTransaction result in `json`, `jsonParsed`, `base64` or `base58` encoding. */
export function formatTransaction(
  record: TransactionRecord,
  encoding: 'json' | 'jsonParsed' | 'base64' | 'base58',
  includeVersion: boolean,
): unknown {
  const { decoded } = record
  const transaction =
    encoding === 'base64'
      ? [getBase64Decoder().decode(decoded.wire), 'base64']
      : encoding === 'base58'
        ? [getBase58Decoder().decode(decoded.wire), 'base58']
        : {
            signatures: decoded.signatures.map((signature) => getBase58Decoder().decode(signature)),
            message: formatMessage(record, encoding === 'jsonParsed'),
          }
  return {
    slot: record.slot,
    blockTime: record.blockTime,
    transaction,
    meta: formatTransactionMeta(record, encoding === 'jsonParsed'),
    ...(includeVersion ? { version: decoded.message.version } : {}),
  }
}
