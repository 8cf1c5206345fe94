import { createHash } from 'node:crypto'
import { AppError } from '@tollgate/core'
import { nigerianBanks } from '../../reference/nigerian-banks.js'
import type { BankAccountResolution } from '../types.js'

const firstNames = [
  'ADAEZE',
  'CHINEDU',
  'OLUWASEUN',
  'FATIMA',
  'IBRAHIM',
  'NGOZI',
  'TUNDE',
  'AMAKA',
  'EMEKA',
  'FUNMILAYO',
  'ABUBAKAR',
  'CHIOMA',
  'KEHINDE',
  'HAUWA',
  'OBINNA',
  'YETUNDE',
] as const
const lastNames = [
  'OKAFOR',
  'ADEYEMI',
  'BELLO',
  'EZE',
  'OGUNLEYE',
  'MUSA',
  'NWOSU',
  'ADEBAYO',
  'ABDULLAHI',
  'OKONKWO',
  'BALOGUN',
  'UCHE',
  'ALIYU',
  'OLAWALE',
  'IHEANACHO',
  'DANJUMA',
] as const

/** The holder name the sandbox bank gives `accountNumber`: the same for the same number, every time. */
export function sandboxAccountName(accountNumber: string): string {
  const digest = createHash('sha256').update(accountNumber).digest()
  const first = firstNames[(digest[0] ?? 0) % firstNames.length]
  const last = lastNames[(digest[1] ?? 0) % lastNames.length]
  return `${first} ${last}`
}

/**
 * Sandbox name enquiry: a 10-digit NUBAN at a bank of the list resolves to a deterministic holder
 * name; numbers starting with `000` are unknown to the bank (`recipient_not_found`). Malformed
 * numbers and unknown bank codes are `validation_error`s.
 */
export function resolveSandboxBankAccount(input: {
  accountNumber: string
  bankCode: string
}): BankAccountResolution {
  if (!/^\d{10}$/.test(input.accountNumber)) {
    throw new AppError('validation_error', {
      message: 'accountNumber must be a 10-digit NUBAN',
      context: { param: 'accountNumber' },
    })
  }
  const bank = nigerianBanks.find((b) => b.code === input.bankCode)
  if (!bank) {
    throw new AppError('validation_error', {
      message: `${input.bankCode} is not a bank code of GET /recipients/banks`,
      context: { param: 'bankCode' },
    })
  }
  if (input.accountNumber.startsWith('000')) {
    throw new AppError('recipient_not_found', {
      message: `${bank.name} has no account with this number`,
      context: { param: 'accountNumber' },
    })
  }
  return {
    accountNumber: input.accountNumber,
    accountName: sandboxAccountName(input.accountNumber),
    bankCode: bank.code,
    bankName: bank.name,
  }
}
