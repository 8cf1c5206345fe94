import { AppError } from '@tollgate/core'
import type { Deps } from '../../deps.js'
import { nigerianBanks } from '../../reference/nigerian-banks.js'
import { createSandboxFx } from '../fx/create-sandbox-fx.js'
import { createSandboxScreening } from '../screening/create-sandbox-screening.js'
import type { Rails } from '../types.js'
import { mobileMoneyInstitutions } from './mobile-money-institutions.js'
import { resolveMobileMoneyAccount } from './resolve-mobile-money-account.js'
import { resolveSandboxBankAccount } from './resolve-sandbox-bank-account.js'
import { createSandboxFiatTransfers, type SandboxFiatOptions } from './sandbox-fiat-transfers.js'
import { createSandboxVirtualAccounts } from './sandbox-virtual-accounts.js'

/** The parts of {@link Rails} the sandbox fiat, FX and screening providers fill. */
export type SandboxFiatRails = Pick<
  Rails,
  'banks' | 'mobileMoney' | 'virtualAccounts' | 'fx' | 'screening' | 'sandboxControls'
>

/**
 * Builds the sandbox bank (NGN), mobile-money (KES, GHS) and virtual-account providers, the FX table
 * and AML screening, with their sandbox controls. Provider state lives in the database (migration
 * 0007), so it survives restarts and is shared across processes. See docs/rails-fiat.md.
 */
export function createSandboxFiatRails(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'logger'>,
  options: SandboxFiatOptions = {},
): SandboxFiatRails {
  const transfers = createSandboxFiatTransfers(deps, options)
  const virtualAccounts = createSandboxVirtualAccounts(deps)
  const fx = createSandboxFx(deps)
  return {
    banks: {
      listBanks: (country) =>
        country.toUpperCase() === 'NG'
          ? nigerianBanks.map((b) => ({
              name: b.name,
              slug: b.slug,
              code: b.code,
              nibssBankCode: b.nibss_bank_code,
              country: b.country,
            }))
          : [],
      resolveAccount: async (input) => resolveSandboxBankAccount(input),
      transfer: async (input) => {
        const { account } = input
        if (!/^\d{10}$/.test(account.accountNumber) || input.currency !== 'NGN') {
          throw new AppError('validation_error', {
            message: 'a bank transfer pays NGN to a 10-digit NUBAN',
            context: { param: 'account.accountNumber' },
          })
        }
        return transfers.transfer('bank', input, {
          ...account,
          institutionCode: account.bankCode,
          institutionName: account.bankName,
        })
      },
      getTransfer: (id) => transfers.getTransfer('bank', id),
      onTransferUpdate: (handler) => transfers.subscribe('bank', handler),
    },
    mobileMoney: {
      listInstitutions: (currency) => mobileMoneyInstitutions.filter((i) => i.currency === currency),
      resolveAccount: async (input) => resolveMobileMoneyAccount(input),
      transfer: async (input) => {
        const { account, currency } = input
        const institution = mobileMoneyInstitutions.find((i) => i.code === account.institutionCode)
        if (!institution || institution.currency !== currency || account.currency !== currency) {
          throw new AppError('validation_error', {
            message: `${account.institutionCode} does not pay out ${currency}`,
            context: { param: 'account.institutionCode' },
          })
        }
        return transfers.transfer('mobile_money', input, account)
      },
      getTransfer: (id) => transfers.getTransfer('mobile_money', id),
      onTransferUpdate: (handler) => transfers.subscribe('mobile_money', handler),
    },
    virtualAccounts: virtualAccounts.provider,
    fx,
    screening: createSandboxScreening(),
    sandboxControls: {
      completeFiatTransfer: transfers.complete,
      simulateInboundTransfer: virtualAccounts.simulateInboundTransfer,
      setFxRates: fx.setRates,
    },
  }
}
