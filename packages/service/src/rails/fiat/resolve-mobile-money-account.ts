import { AppError } from '@tollgate/core'
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/mobile'
import type { MobileMoneyResolution } from '../types.js'
import { mobileMoneyInstitutions } from './mobile-money-institutions.js'

/** Input of {@link resolveMobileMoneyAccount} (the recipient details of `kes_mobile_money` / `ghs_mobile_money`). */
export type ResolveMobileMoneyInput = {
  currency?: 'KES' | 'GHS'
  phoneNumber: string
  institutionCode: string
  accountName: string
  accountType?: string
}

const maxNameLength = 100

/**
 * Resolves corridor and provider of a mobile-money account: the institution by code, the phone as a
 * valid mobile number of the institution's country (libphonenumber-js mobile metadata; national or
 * E.164 input, E.164 out). The holder name is the one given (the sandbox has no KYC register).
 */
export function resolveMobileMoneyAccount(input: ResolveMobileMoneyInput): MobileMoneyResolution {
  const invalid = (param: string, message: string) =>
    new AppError('validation_error', { message, context: { param } })
  const institution = mobileMoneyInstitutions.find((i) => i.code === input.institutionCode)
  if (!institution) {
    const codes = mobileMoneyInstitutions.map((i) => i.code).join(', ')
    throw invalid('institutionCode', `${input.institutionCode} is not a mobile-money institution (${codes})`)
  }
  if (input.currency !== undefined && input.currency !== institution.currency) {
    throw invalid(
      'currency',
      `${institution.name} pays out in ${institution.currency}, not ${input.currency}`,
    )
  }
  const country = institution.countryIsoCode as CountryCode
  const phone = parsePhoneNumberFromString(input.phoneNumber, country)
  if (!phone?.isValid() || phone.country !== country) {
    throw invalid('phoneNumber', `not a valid ${country} mobile number`)
  }
  const accountName = input.accountName.trim()
  if (accountName.length === 0 || accountName.length > maxNameLength) {
    throw invalid('accountName', `accountName must have 1-${maxNameLength} characters`)
  }
  return {
    currency: institution.currency,
    countryIsoCode: institution.countryIsoCode,
    accountNumber: phone.number,
    accountName,
    institutionCode: institution.code,
    institutionName: institution.name,
    accountType: input.accountType ?? 'personal',
  }
}
