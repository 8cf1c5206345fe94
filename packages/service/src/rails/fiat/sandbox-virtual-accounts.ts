import { createHash } from 'node:crypto'
import { AppError } from '@tollgate/core'
import type { Selectable } from 'kysely'
import { inTransaction } from '../../db/in-transaction.js'
import type { SandboxInboundTransfersTable, SandboxVirtualAccountsTable } from '../../db/schema/rails-fiat.js'
import type { Deps } from '../../deps.js'
import type { KeyEnvironment } from '../../http/app-env.js'
import { nigerianBanks } from '../../reference/nigerian-banks.js'
import type {
  Db,
  InboundFiatTransfer,
  SandboxControls,
  VirtualAccount,
  VirtualAccountProvider,
} from '../types.js'

type InboundHandler = (db: Db, transfer: InboundFiatTransfer) => Promise<void>

// Sandbox virtual accounts are issued at Wema Bank, as many Nigerian providers' dedicated accounts are.
const issuingBank = { code: '035', name: 'Wema Bank' }
const defaultPayer = { accountName: 'SANDBOX PAYER', accountNumber: '0123456789', bankCode: '058' }
const maxAllocationAttempts = 10

/** The BVN rule of the spec: exactly 11 digits. */
export function isValidBvn(bvn: string): boolean {
  return /^\d{11}$/.test(bvn)
}

/**
 * The simulated NGN virtual-account provider: accounts keyed by our id (its idempotency key) with a
 * 10-digit number derived from that id, and inbound transfers recorded once per provider reference
 * and delivered to `onInboundTransfer` subscribers in the recording transaction.
 */
export function createSandboxVirtualAccounts(deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>): {
  provider: VirtualAccountProvider
  simulateInboundTransfer: SandboxControls['simulateInboundTransfer']
} {
  const subscribers = new Set<InboundHandler>()

  const create: VirtualAccountProvider['create'] = async (input) => {
    if (!isValidBvn(input.bvn)) {
      throw new AppError('validation_error', { message: 'bvn must be 11 digits', context: { param: 'bvn' } })
    }
    const accountName = input.accountName.trim()
    if (
      input.id.length === 0 ||
      input.id.length > 100 ||
      accountName.length === 0 ||
      accountName.length > 100
    ) {
      throw new AppError('validation_error', {
        message: 'id and accountName must have 1-100 characters',
        context: { param: accountName.length === 0 || accountName.length > 100 ? 'accountName' : 'id' },
      })
    }
    const bvnHash = createHash('sha256').update(input.bvn).digest('hex')
    const row = await inTransaction(deps.db, async (trx) => {
      for (let attempt = 0; attempt < maxAllocationAttempts; attempt++) {
        await trx
          .insertInto('sandbox_virtual_accounts')
          .values({
            account_reference: input.id,
            merchant_id: input.merchantId ?? null,
            environment: input.environment ?? null,
            bvn_hash: bvnHash,
            account_number: accountNumberFor(input.id, attempt),
            account_name: accountName,
            bank_code: issuingBank.code,
            bank_name: issuingBank.name,
            created_at: deps.clock.now(),
          })
          // A repeated id keeps its account; a number already taken tries the next candidate.
          .onConflict((oc) => oc.doNothing())
          .execute()
        const found = await trx
          .selectFrom('sandbox_virtual_accounts')
          .selectAll()
          .where('account_reference', '=', input.id)
          .executeTakeFirst()
        if (found) {
          return found
        }
      }
      throw new AppError('provider_unavailable', {
        message: 'The provider could not allocate an account number',
      })
    })
    if (row.bvn_hash !== bvnHash || row.account_name !== accountName) {
      throw new AppError('idempotency_key_reused', {
        message: `virtual account ${input.id} already exists with another BVN or name`,
        context: { param: 'id' },
      })
    }
    return toVirtualAccount(row)
  }

  const simulateInboundTransfer: SandboxControls['simulateInboundTransfer'] = async (input) => {
    if (input.amount <= 0n) {
      throw new AppError('validation_error', {
        message: 'amount must be greater than zero',
        context: { param: 'amount' },
      })
    }
    const payerBankCode = input.payer?.bankCode ?? defaultPayer.bankCode
    const payerBank = nigerianBanks.find((b) => b.code === payerBankCode)
    if (!payerBank) {
      throw new AppError('validation_error', {
        message: `${payerBankCode} is not a bank code of GET /recipients/banks`,
        context: { param: 'payer.bankCode' },
      })
    }
    return inTransaction(deps.db, async (trx) => {
      const account = await trx
        .selectFrom('sandbox_virtual_accounts')
        .selectAll()
        .where('account_number', '=', input.accountNumber)
        .executeTakeFirst()
      if (!account || !ownedBy(account, input.merchantId, input.environment)) {
        throw new AppError('not_found', {
          message: 'No virtual account with this number',
          context: { param: 'accountNumber' },
        })
      }
      const reference = input.reference ?? deps.ids.create('sbxin')
      const inserted = await trx
        .insertInto('sandbox_inbound_transfers')
        .values({
          id: deps.ids.create('ibt'),
          account_reference: account.account_reference,
          environment: account.environment ?? input.environment,
          amount: input.amount,
          currency: 'NGN',
          reference,
          payer_account_name: input.payer?.accountName ?? defaultPayer.accountName,
          payer_account_number: input.payer?.accountNumber ?? defaultPayer.accountNumber,
          payer_bank_name: payerBank.name,
          payer_bank_code: payerBank.code,
          received_at: deps.clock.now(),
        })
        .onConflict((oc) => oc.column('reference').doNothing())
        .returningAll()
        .executeTakeFirst()
      if (!inserted) {
        const existing = await trx
          .selectFrom('sandbox_inbound_transfers')
          .selectAll()
          .where('reference', '=', reference)
          .executeTakeFirstOrThrow()
        if (
          existing.account_reference !== account.account_reference ||
          BigInt(existing.amount) !== input.amount
        ) {
          throw new AppError('idempotency_key_reused', {
            message: `reference ${reference} was already used for another transfer`,
            context: { param: 'reference' },
          })
        }
        return { transfer: toInbound(existing), accountNumber: account.account_number, delivered: false }
      }
      const transfer = toInbound(inserted)
      for (const handler of subscribers) {
        await handler(trx, transfer)
      }
      return { transfer, accountNumber: account.account_number, delivered: true }
    })
  }

  return {
    provider: {
      create,
      onInboundTransfer: (handler) => {
        subscribers.add(handler)
        return () => {
          subscribers.delete(handler)
        }
      },
    },
    simulateInboundTransfer,
  }
}

/** The `attempt`-th candidate account number of virtual account `id`: 10 digits from its SHA-256. */
function accountNumberFor(id: string, attempt: number): string {
  const digest = createHash('sha256').update(`${id}:${attempt}`).digest()
  // Starts with 9, as no steering rule of the sandbox (prefix 000, suffixes 0000/1111/2222) needs it to.
  return `9${(digest.readBigUInt64BE(0) % 1_000_000_000n).toString().padStart(9, '0')}`
}

function ownedBy(
  account: Selectable<SandboxVirtualAccountsTable>,
  merchantId: string | undefined,
  environment: KeyEnvironment,
): boolean {
  const merchantMatches =
    account.merchant_id === null || merchantId === undefined || account.merchant_id === merchantId
  return merchantMatches && (account.environment === null || account.environment === environment)
}

function toVirtualAccount(row: Selectable<SandboxVirtualAccountsTable>): VirtualAccount {
  return {
    currency: 'NGN',
    accountNumber: row.account_number,
    accountName: row.account_name,
    bankName: row.bank_name,
    bankCode: row.bank_code,
    accountReference: row.account_reference,
  }
}

function toInbound(row: Selectable<SandboxInboundTransfersTable>): InboundFiatTransfer {
  return {
    id: row.id,
    environment: row.environment,
    accountReference: row.account_reference,
    amount: BigInt(row.amount),
    currency: 'NGN',
    reference: row.reference,
    payer: {
      accountName: row.payer_account_name,
      accountNumber: row.payer_account_number,
      bankName: row.payer_bank_name,
      bankCode: row.payer_bank_code,
    },
    receivedAt: row.received_at,
  }
}
