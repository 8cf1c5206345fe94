import { AppError, isAppError } from '@tollgate/core'
import type { Deps } from '../deps.js'
import type { KeyEnvironment } from '../http/app-env.js'
import { matchesAccountName } from './match-account-name.js'
import type { RecipientDetailsInput } from './recipient.js'

/** A recipient's details resolved through the rails, unmasked, with what identifies and describes it. */
export type ResolvedRecipient = {
  type: RecipientDetailsInput['type']
  details: Record<string, string | null>
  /** Same destination = same fingerprint: a second create returns the first recipient. */
  fingerprint: string
  /** Holder name (bank, mobile money) or null (crypto). */
  holderName: string | null
  /** Bank or provider name, or the chain. */
  institution: string
  defaultLabel: string
  /** False only for a bank account whose holder is neither the merchant's name nor business name. */
  nameMatches: boolean
}

const evmAddress = /^0x[0-9a-fA-F]{40}$/

const invalidDetail = (field: string, message: string, code: string) =>
  new AppError('validation_error', {
    message,
    context: { param: `details.${field}`, details: [{ field: `body.details.${field}`, message, code }] },
  })

/**
 * Validates and resolves recipient details through the rails: crypto addresses per chain, NGN bank
 * accounts by name enquiry (checked against the merchant's names), mobile money to its corridor and
 * provider. Invalid details throw `validation_error` (docs/payouts.md "Recipients").
 */
export async function resolveRecipient(
  deps: Pick<Deps, 'db' | 'rails'>,
  input: { merchantId: string; environment: KeyEnvironment; recipient: RecipientDetailsInput },
): Promise<ResolvedRecipient> {
  const { recipient } = input
  switch (recipient.type) {
    case 'crypto_address': {
      const { chain, address } = recipient.details
      if (!deps.rails.chains.get(input.environment, chain)) {
        throw invalidDetail('chain', `chain ${chain} is not supported`, 'unsupported_chain')
      }
      if (!deps.rails.chains.isValidAddress(chain, address)) {
        throw invalidDetail('address', `"${address}" is not a valid ${chain} address`, 'invalid_address')
      }
      const canonical = evmAddress.test(address) ? address.toLowerCase() : address
      return {
        type: recipient.type,
        details: { chain, address },
        fingerprint: `crypto_address:${chain}:${canonical}`,
        holderName: null,
        institution: chain,
        defaultLabel: `${chain} ${address.slice(0, 6)}…${address.slice(-4)}`,
        nameMatches: true,
      }
    }
    case 'ngn_bank_account': {
      const { accountNumber, bankCode } = recipient.details
      const account = await deps.rails.banks
        .resolveAccount({ accountNumber, bankCode })
        .catch((error: unknown) => {
          if (isAppError(error, 'recipient_not_found') || isAppError(error, 'validation_error')) {
            throw invalidDetail('accountNumber', error.message, 'account_not_found')
          }
          throw error
        })
      const merchant = await deps.db
        .selectFrom('merchants')
        .select(['name', 'business_name'])
        .where('id', '=', input.merchantId)
        .executeTakeFirstOrThrow()
      return {
        type: recipient.type,
        details: {
          accountName: account.accountName,
          accountNumber: account.accountNumber,
          bankName: account.bankName,
          bankCode: account.bankCode,
          accountType: recipient.details.accountType ?? 'savings',
          currency: 'NGN',
        },
        fingerprint: `ngn_bank_account:${account.bankCode}:${account.accountNumber}`,
        holderName: account.accountName,
        institution: account.bankName,
        defaultLabel: `${account.accountName} (${account.bankName})`,
        nameMatches: matchesAccountName(account.accountName, [merchant.name, merchant.business_name]),
      }
    }
    case 'kes_mobile_money':
    case 'ghs_mobile_money': {
      const currency = recipient.type === 'kes_mobile_money' ? 'KES' : 'GHS'
      const { phoneNumber, accountName, institutionCode, accountType } = recipient.details
      const account = await deps.rails.mobileMoney
        .resolveAccount({
          currency,
          phoneNumber,
          institutionCode,
          accountName,
          ...(accountType === undefined ? {} : { accountType }),
        })
        .catch((error: unknown) => {
          if (isAppError(error, 'recipient_not_found') || isAppError(error, 'validation_error')) {
            throw invalidDetail('phoneNumber', error.message, 'account_not_found')
          }
          throw error
        })
      if (account.currency !== currency) {
        throw invalidDetail(
          'phoneNumber',
          `${phoneNumber} is a ${account.currency} mobile-money account, not ${currency}`,
          'wrong_corridor',
        )
      }
      return {
        type: recipient.type,
        details: {
          currency: account.currency,
          countryIsoCode: account.countryIsoCode,
          accountNumber: account.accountNumber,
          accountName: account.accountName,
          institutionCode: account.institutionCode,
          institutionName: account.institutionName,
          accountType: account.accountType,
        },
        fingerprint: `${recipient.type}:${account.institutionCode}:${account.accountNumber}`,
        holderName: account.accountName,
        institution: account.institutionName,
        defaultLabel: `${account.accountName} (${account.institutionName})`,
        nameMatches: true,
      }
    }
  }
}
