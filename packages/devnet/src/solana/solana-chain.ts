import { type Address, type Blockhash, getAddressDecoder, type ReadonlyUint8Array } from '@solana/kit'
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm'
import {
  computeTransactionFee,
  type DecodedTransaction,
  readLookupTableAddresses,
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

/**
 * LiteSVM plus what a real cluster has and LiteSVM lacks: slots, block heights and a queue of recent
 * blockhashes (each valid for 150 blocks), a transaction log by signature, and per-address history.
 * Every landed transaction closes the current block, so slot and blockhash advance with traffic.
 */
export class SolanaChain {
  readonly svm: LiteSVM
  slot = 1n
  private readonly blockhashes = new Map<string, bigint>()
  private readonly records = new Map<string, TransactionRecord>()
  private readonly byAddress = new Map<string, string[]>()
  transactionCount = 0n

  constructor() {
    // Signatures and blockhash age are checked here (LiteSVM only knows one blockhash); history is ours too.
    this.svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n)
    this.blockhashes.set(this.svm.latestBlockhash(), this.slot)
    this.syncClock()
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
    const height = this.blockhashes.get(blockhash)
    return height !== undefined && height + BLOCKHASH_VALIDITY_BLOCKS >= this.blockHeight
  }

  /** Produces `count` blocks, each with a fresh blockhash (the admin hook that ages blockhashes). */
  advanceBlocks(count: number): void {
    for (let i = 0; i < count; i++) {
      this.slot++
      this.svm.expireBlockhash()
      this.blockhashes.set(this.svm.latestBlockhash(), this.slot)
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

  /** Runs a transaction against current state without committing it (signatures checked only if asked). */
  simulate(decoded: DecodedTransaction, options: { sigVerify: boolean }): ExecutionResult {
    const rejection = this.checkAdmission(decoded, options.sigVerify)
    if (rejection) {
      return emptyExecution(rejection)
    }
    const result = this.svm.simulateTransaction(decoded.transaction)
    if (result instanceof FailedTransactionMetadata) {
      return toExecution(result.meta(), toTransactionErrorJson(result.err()))
    }
    const execution = toExecution(result.meta(), null)
    for (const account of result.postAccounts()) {
      execution.postAccounts.set(account.address, {
        lamports: account.lamports,
        data: account.data,
        owner: account.programAddress,
        executable: account.executable,
      })
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
    const result = this.svm.sendTransaction(decoded.transaction)
    const postBalances = accountKeys.map((key) => this.svm.getBalance(key) ?? 0n)
    const failed = result instanceof FailedTransactionMetadata
    const err = failed ? toTransactionErrorJson(result.err()) : null
    // LiteSVM commits nothing for transactions the runtime would drop, so an untouched fee payer means not landed.
    if (failed && postBalances[0] === preBalances[0]) {
      return { landed: false, err }
    }
    const execution = toExecution(failed ? result.meta() : result, err)
    const record: TransactionRecord = {
      ...execution,
      decoded,
      slot: this.slot,
      blockTime: Math.floor(Date.now() / 1000),
      accountKeys,
      loadedAddresses,
      fee: computeTransactionFee(decoded.message),
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances: this.readTokenBalances(accountKeys),
    }
    this.records.set(decoded.signature, record)
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
    if (this.records.has(decoded.signature)) {
      return 'AlreadyProcessed'
    }
    if (!this.isBlockhashValid(decoded.message.lifetimeToken)) {
      return 'BlockhashNotFound'
    }
    const feePayer = decoded.message.staticAccounts[0]
    const balance = feePayer ? (this.svm.getBalance(feePayer) ?? 0n) : 0n
    if (balance === 0n) {
      return 'AccountNotFound'
    }
    if (balance < computeTransactionFee(decoded.message)) {
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

function toExecution(meta: TransactionMetadata, err: TransactionErrorJson | null): ExecutionResult {
  const returnData = meta.returnData()
  const returnBytes = returnData.data()
  const returnProgram = getAddressDecoder().decode(returnData.programId())
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: meta.computeUnitsConsumed(),
    innerInstructions: meta
      .innerInstructions()
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
    returnData: returnBytes.length > 0 ? { programId: returnProgram, data: returnBytes } : null,
    postAccounts: new Map(),
  }
}
