import {
  type Address,
  type Blockhash,
  getAddressDecoder,
  getBase58Encoder,
  type ReadonlyUint8Array,
} from '@solana/kit'
import { type Account, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm'
import { LRUCache } from 'lru-cache'
import {
  computeTransactionFee,
  type DecodedTransaction,
  readLookupTableAddresses,
  toLatin1,
  verifyTransactionSignatures,
} from './decode-wire-transaction.js'
import { decodeMint, decodeTokenAccount, isTokenProgram, toUiTokenAmount } from './token-layout.js'
import { type TransactionErrorJson, toTransactionErrorJson } from './transaction-error.js'

/** How many blocks a blockhash stays usable after the block that produced it (the cluster's 150). */
export const BLOCKHASH_VALIDITY_BLOCKS = 150n

/** One inner instruction as the runtime recorded it: indexes into the transaction's account keys. */
export type InnerInstructionRecord = {
  programIdIndex: number
  accounts: number[]
  data: Uint8Array
  stackHeight: number
}

/** A token balance entry of `preTokenBalances` / `postTokenBalances`. */
export type TokenBalanceRecord = {
  accountIndex: number
  mint: string
  owner: string
  programId: string
  uiTokenAmount: ReturnType<typeof toUiTokenAmount>
}

/** What running a transaction produced (a landed transaction's meta, or a simulation). */
export type ExecutionResult = {
  err: TransactionErrorJson | null
  logs: string[]
  unitsConsumed: bigint
  innerInstructions: { index: number; instructions: InnerInstructionRecord[] }[]
  returnData: { programId: string; data: Uint8Array } | null
  /** Accounts after a successful simulation (address → state); empty otherwise. */
  postAccounts: Map<
    string,
    { lamports: bigint; data: ReadonlyUint8Array; owner: string; executable: boolean }
  >
}

/** What a simulation reports beyond err/logs/units/return data (each costs work, so only on request). */
export type SimulationOptions = { sigVerify: boolean; innerInstructions?: boolean; postAccounts?: boolean }

// LiteSVM's native instance, which takes wire bytes and raw keys; its JS wrapper re-encodes kit
// transactions and base58 addresses on every call.
type NativeSimulation = {
  meta(): TransactionMetadata
  postAccounts(): { address: Uint8Array; account(): Account }[]
}
type NativeLiteSvm = {
  getAccount(pubkey: Uint8Array): Account | null
  getBalance(pubkey: Uint8Array): bigint | null
  simulateLegacyTransaction(tx: Uint8Array): NativeSimulation | FailedTransactionMetadata
  simulateVersionedTransaction(tx: Uint8Array): NativeSimulation | FailedTransactionMetadata
  sendLegacyTransaction(tx: Uint8Array): TransactionMetadata | FailedTransactionMetadata
  sendVersionedTransaction(tx: Uint8Array): TransactionMetadata | FailedTransactionMetadata
}

function nativeOf(svm: LiteSVM): NativeLiteSvm {
  const native = (svm as unknown as { inner?: Partial<NativeLiteSvm> }).inner
  if (
    typeof native?.simulateVersionedTransaction !== 'function' ||
    typeof native.getBalance !== 'function' ||
    typeof native.getAccount !== 'function'
  ) {
    throw new Error('litesvm: the LiteSVM wrapper no longer exposes its native instance as `inner`')
  }
  return native as NativeLiteSvm
}

/** A transaction that landed in a block: everything getTransaction and getSignatureStatuses report. */
export type TransactionRecord = ExecutionResult & {
  decoded: DecodedTransaction
  slot: bigint
  blockTime: number
  accountKeys: Address[]
  loadedAddresses: { writable: Address[]; readonly: Address[] }
  fee: bigint
  preBalances: bigint[]
  postBalances: bigint[]
  preTokenBalances: TokenBalanceRecord[]
  postTokenBalances: TokenBalanceRecord[]
}

/** Account state as the chain holds it (the owner in base58). */
export type AccountState = { lamports: bigint; data: ReadonlyUint8Array; owner: string; executable: boolean }

/**
 * LiteSVM plus what a real cluster has and LiteSVM lacks: slots, block heights and a queue of recent
 * blockhashes (each valid for 150 blocks), a transaction log by signature, and per-address history.
 * Every landed transaction closes the current block, so slot and blockhash advance with traffic.
 */
export class SolanaChain {
  readonly svm: LiteSVM
  private readonly native: NativeLiteSvm
  slot = 1n
  /** Block height at which each recent blockhash was produced, by the blockhash's bytes (latin1). */
  private readonly blockhashes = new Map<string, bigint>()
  private readonly records = new Map<string, TransactionRecord>()
  /** First-signature bytes (latin1) of every landed transaction: duplicate checks without base58. */
  private readonly landed = new Set<string>()
  private readonly byAddress = new Map<string, string[]>()
  transactionCount = 0n
  /**
   * Decoded base58 addresses (valid ones only). Watchers read the same accounts every poll, and kit's
   * base58 (BigInt arithmetic), which LiteSVM's wrapper runs twice per read, cost about 24 µs per
   * account in getMultipleAccounts (`npm run bench watchers`, CPU profile).
   */
  private readonly addressBytes = new LRUCache<string, Uint8Array>({ max: 65_536 })
  /** base58 of account owners (programs: a handful), by their bytes as latin1. */
  private readonly ownerTexts = new LRUCache<string, string>({ max: 1_024 })

  constructor() {
    // Signatures and blockhash age are checked here (LiteSVM only knows one blockhash); history is ours too.
    this.svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n)
    this.native = nativeOf(this.svm)
    this.rememberLatestBlockhash()
    this.syncClock()
  }

  private rememberLatestBlockhash(): void {
    const bytes = new Uint8Array(getBase58Encoder().encode(this.svm.latestBlockhash()))
    this.blockhashes.set(toLatin1(bytes), this.slot)
  }

  /** The 32 bytes of a base58 address, or null when it is not one (kit's `isAddress` rule). */
  decodeAddress(address: string): Uint8Array | null {
    const cached = this.addressBytes.get(address)
    if (cached) {
      return cached
    }
    if (address.length < 32 || address.length > 44) {
      return null
    }
    let bytes: Uint8Array
    try {
      bytes = new Uint8Array(getBase58Encoder().encode(address))
    } catch {
      return null
    }
    if (bytes.length !== 32) {
      return null
    }
    this.addressBytes.set(address, bytes)
    return bytes
  }

  /** An account by its address's bytes, or null when it does not exist; no base58 but the owner's (cached). */
  readAccountAt(key: Uint8Array): AccountState | null {
    const account = this.native.getAccount(key)
    if (account === null) {
      return null
    }
    const ownerBytes = account.owner()
    const ownerKey = toLatin1(ownerBytes)
    let owner = this.ownerTexts.get(ownerKey)
    if (owner === undefined) {
      owner = getAddressDecoder().decode(ownerBytes)
      this.ownerTexts.set(ownerKey, owner)
    }
    return { lamports: account.lamports(), data: account.data(), owner, executable: account.executable() }
  }

  /** Block height; equals the slot since this chain never skips a slot. */
  get blockHeight(): bigint {
    return this.slot
  }

  /** The newest blockhash and the last block height at which a transaction using it can land. */
  getLatestBlockhash(): { blockhash: Blockhash; lastValidBlockHeight: bigint } {
    return {
      blockhash: this.svm.latestBlockhash(),
      lastValidBlockHeight: this.blockHeight + BLOCKHASH_VALIDITY_BLOCKS,
    }
  }

  /** Whether a transaction with this blockhash could still land in the current block. */
  isBlockhashValid(blockhash: string): boolean {
    let bytes: Uint8Array
    try {
      bytes = new Uint8Array(getBase58Encoder().encode(blockhash))
    } catch {
      return false
    }
    return bytes.length === 32 && this.isBlockhashKeyValid(toLatin1(bytes))
  }

  /** {@link isBlockhashValid} for a blockhash's bytes as a latin1 string. */
  isBlockhashKeyValid(key: string): boolean {
    const height = this.blockhashes.get(key)
    return height !== undefined && height + BLOCKHASH_VALIDITY_BLOCKS >= this.blockHeight
  }

  /** Produces `count` blocks, each with a fresh blockhash (the admin hook that ages blockhashes). */
  advanceBlocks(count: number): void {
    for (let i = 0; i < count; i++) {
      this.slot++
      this.svm.expireBlockhash()
      this.rememberLatestBlockhash()
    }
    for (const [hash, height] of this.blockhashes) {
      if (height + 2n * BLOCKHASH_VALIDITY_BLOCKS < this.slot) {
        this.blockhashes.delete(hash)
      }
    }
    this.syncClock()
  }

  private syncClock(): void {
    const clock = this.svm.getClock()
    clock.slot = this.slot
    clock.unixTimestamp = BigInt(Math.floor(Date.now() / 1000))
    this.svm.setClock(clock)
  }

  /** A landed transaction by base58 signature. */
  getRecord(signature: string): TransactionRecord | undefined {
    return this.records.get(signature)
  }

  /** Signatures of landed transactions that reference `address`, newest first. */
  getSignaturesFor(address: string): string[] {
    return [...(this.byAddress.get(address) ?? [])].reverse()
  }

  /**
   * Runs a transaction against current state without committing it (signatures checked only if
   * asked); inner instructions and post-simulation accounts are collected only when asked for.
   */
  simulate(decoded: DecodedTransaction, options: SimulationOptions): ExecutionResult {
    const rejection = this.checkAdmission(decoded, options.sigVerify)
    if (rejection) {
      return emptyExecution(rejection)
    }
    const result =
      decoded.version === 'legacy'
        ? this.native.simulateLegacyTransaction(decoded.wire)
        : this.native.simulateVersionedTransaction(decoded.wire)
    const inner = options.innerInstructions === true
    if (result instanceof FailedTransactionMetadata) {
      return toExecution(result.meta(), toTransactionErrorJson(result.err()), inner)
    }
    const execution = toExecution(result.meta(), null, inner)
    if (options.postAccounts === true) {
      const decoder = getAddressDecoder()
      for (const entry of result.postAccounts()) {
        const account = entry.account()
        execution.postAccounts.set(decoder.decode(entry.address), {
          lamports: account.lamports(),
          data: account.data(),
          owner: decoder.decode(account.owner()),
          executable: account.executable(),
        })
      }
    }
    return execution
  }

  /**
   * Executes a transaction and, when it lands (succeeds, or fails after paying its fee), records it and
   * closes the block. A transaction refused before execution (bad signature, stale blockhash, duplicate,
   * no fee) is dropped, as a leader would drop it; the refusal is returned.
   */
  execute(decoded: DecodedTransaction): { landed: boolean; err: TransactionErrorJson | null } {
    const rejection = this.checkAdmission(decoded, true)
    if (rejection) {
      return { landed: false, err: rejection }
    }
    const { accountKeys, loadedAddresses } = this.resolveAccountKeys(decoded)
    const preBalances = accountKeys.map((key) => this.svm.getBalance(key) ?? 0n)
    const preTokenBalances = this.readTokenBalances(accountKeys)
    const result =
      decoded.version === 'legacy'
        ? this.native.sendLegacyTransaction(decoded.wire)
        : this.native.sendVersionedTransaction(decoded.wire)
    const postBalances = accountKeys.map((key) => this.svm.getBalance(key) ?? 0n)
    const failed = result instanceof FailedTransactionMetadata
    const err = failed ? toTransactionErrorJson(result.err()) : null
    // LiteSVM commits nothing for transactions the runtime would drop, so an untouched fee payer means not landed.
    if (failed && postBalances[0] === preBalances[0]) {
      return { landed: false, err }
    }
    const execution = toExecution(failed ? result.meta() : result, err, true)
    const record: TransactionRecord = {
      ...execution,
      decoded,
      slot: this.slot,
      blockTime: Math.floor(Date.now() / 1000),
      accountKeys,
      loadedAddresses,
      fee: computeTransactionFee(decoded),
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances: this.readTokenBalances(accountKeys),
    }
    this.records.set(decoded.signature, record)
    this.landed.add(decoded.signatureKey)
    for (const key of new Set(accountKeys)) {
      const list = this.byAddress.get(key) ?? []
      list.push(decoded.signature)
      this.byAddress.set(key, list)
    }
    this.transactionCount++
    this.advanceBlocks(1)
    return { landed: true, err }
  }

  private checkAdmission(decoded: DecodedTransaction, sigVerify: boolean): TransactionErrorJson | null {
    if (sigVerify && !verifyTransactionSignatures(decoded)) {
      return 'SignatureFailure'
    }
    if (this.landed.has(decoded.signatureKey)) {
      return 'AlreadyProcessed'
    }
    if (!this.isBlockhashKeyValid(decoded.blockhashKey)) {
      return 'BlockhashNotFound'
    }
    const feePayer = decoded.staticKeys[0]
    const balance = feePayer ? (this.native.getBalance(feePayer) ?? 0n) : 0n
    if (balance === 0n) {
      return 'AccountNotFound'
    }
    if (balance < computeTransactionFee(decoded)) {
      return 'InsufficientFundsForFee'
    }
    return null
  }

  /** Static keys followed by the lookup-table keys (writable, then readonly), the runtime's account order. */
  resolveAccountKeys(decoded: DecodedTransaction): {
    accountKeys: Address[]
    loadedAddresses: { writable: Address[]; readonly: Address[] }
  } {
    const writable: Address[] = []
    const readonly: Address[] = []
    const lookups =
      'addressTableLookups' in decoded.message ? (decoded.message.addressTableLookups ?? []) : []
    for (const lookup of lookups) {
      const table = this.svm.getAccount(lookup.lookupTableAddress)
      const addresses = table.exists ? readLookupTableAddresses(table.data) : []
      for (const index of lookup.writableIndexes) {
        const key = addresses[index]
        if (key) {
          writable.push(key)
        }
      }
      for (const index of lookup.readonlyIndexes) {
        const key = addresses[index]
        if (key) {
          readonly.push(key)
        }
      }
    }
    return {
      accountKeys: [...decoded.message.staticAccounts, ...writable, ...readonly],
      loadedAddresses: { writable, readonly },
    }
  }

  private readTokenBalances(accountKeys: Address[]): TokenBalanceRecord[] {
    const balances: TokenBalanceRecord[] = []
    accountKeys.forEach((key, accountIndex) => {
      const account = this.svm.getAccount(key)
      const token =
        account.exists && isTokenProgram(account.programAddress) ? decodeTokenAccount(account.data) : null
      const mintAccount = token ? this.svm.getAccount(token.mint) : null
      const mint = mintAccount?.exists ? decodeMint(mintAccount.data) : null
      if (account.exists && token && mint) {
        balances.push({
          accountIndex,
          mint: token.mint,
          owner: token.owner,
          programId: account.programAddress,
          uiTokenAmount: toUiTokenAmount(token.amount, mint.decimals),
        })
      }
    })
    return balances
  }
}

function emptyExecution(err: TransactionErrorJson): ExecutionResult {
  return {
    err,
    logs: [],
    unitsConsumed: 0n,
    innerInstructions: [],
    returnData: null,
    postAccounts: new Map(),
  }
}

function toExecution(
  meta: TransactionMetadata,
  err: TransactionErrorJson | null,
  withInnerInstructions: boolean,
): ExecutionResult {
  const returnData = meta.returnData()
  const returnBytes = returnData.data()
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    innerInstructions: (withInnerInstructions ? meta.innerInstructions() : [])
      .map((group, index) => ({
        index,
        instructions: group.map((inner) => {
          const compiled = inner.instruction()
          return {
            programIdIndex: compiled.programIdIndex(),
            accounts: [...compiled.accounts()],
            data: compiled.data(),
            stackHeight: inner.stackHeight(),
          }
        }),
      }))
      .filter((group) => group.instructions.length > 0),
    // The runtime reports return data only when a program set some.
    returnData:
      returnBytes.length > 0
        ? { programId: getAddressDecoder().decode(returnData.programId()), data: returnBytes }
        : null,
    postAccounts: new Map(),
  }
}
