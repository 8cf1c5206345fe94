import { isAppError } from '@tollgate/core'
import { beforeAll, describe, expect, test } from 'vitest'
import { createIdGenerator, type Deps, systemClock } from '../../deps.js'
import { createLogger } from '../../http/create-logger.js'
import { createDefaultSettings } from '../../settings.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createRails } from '../create-rails.js'
import type { BankAccountResolution, FiatTransfer, MobileMoneyResolution } from '../types.js'
import { runFiatCallbackJob } from './run-fiat-callback-job.js'
import { fiatCallbackJobKind } from './sandbox-fiat-transfers.js'

type Delivery = { transfer: FiatTransfer; inTransaction: boolean }

describeEachDatabase('sandbox fiat providers', (getDb) => {
  let deps: Deps
  const bankUpdates: Delivery[] = []
  const momoUpdates: Delivery[] = []
  beforeAll(() => {
    const base = {
      db: getDb(),
      clock: systemClock,
      ids: createIdGenerator(),
      logger: createLogger({ level: 'silent' }),
    }
    deps = {
      ...base,
      rails: createRails(base, { fiat: { callbackDelayMs: 5000 } }),
      settings: createDefaultSettings(),
    }
    deps.rails.banks.onTransferUpdate(async (db, transfer) => {
      bankUpdates.push({ transfer, inTransaction: db.isTransaction })
    })
    deps.rails.mobileMoney.onTransferUpdate(async (db, transfer) => {
      momoUpdates.push({ transfer, inTransaction: db.isTransaction })
    })
  })

  let counter = 0
  const nextId = () => `pay_test_${Date.now()}_${counter++}`
  const bankAccount = (accountNumber: string): Promise<BankAccountResolution> =>
    deps.rails.banks.resolveAccount({ accountNumber, bankCode: '058' })
  const bankTransfer = async (id: string, accountNumber: string, amount = 100n) => ({
    id,
    amount,
    currency: 'NGN' as const,
    account: await bankAccount(accountNumber),
    narration: 'x',
  })
  const payToBank = async (id: string, accountNumber: string) =>
    deps.rails.banks.transfer(await bankTransfer(id, accountNumber))
  const callbackJobs = (transferId: string) =>
    deps.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', fiatCallbackJobKind)
      .where('key', '=', transferId)
      .execute()
  const deliveriesOf = (list: Delivery[], id: string) => list.filter((d) => d.transfer.id === id)

  describe('banks', () => {
    test('default: the bank list of GET /recipients/banks, NG only', () => {
      const banks = deps.rails.banks.listBanks('ng')
      expect(banks.length).toBeGreaterThan(10)
      expect(banks).toContainEqual({
        name: 'Access Bank',
        slug: 'access-bank',
        code: '044',
        nibssBankCode: '000014',
        country: 'NG',
      })
      expect(deps.rails.banks.listBanks('gh')).toEqual([])
    })

    test('default: success after the simulated callback, delivered once inside the recording transaction', async () => {
      const id = nextId()
      const started = Date.now()
      const transfer = await deps.rails.banks.transfer({
        id,
        amount: 150_000n,
        currency: 'NGN',
        account: await bankAccount('0123456789'),
        narration: 'Payout',
      })
      expect(transfer).toEqual({
        id,
        providerReference: expect.stringMatching(/^sbxtrf_/),
        status: 'processing',
        failureReason: null,
      })
      const [job, ...others] = await callbackJobs(id)
      expect(others).toEqual([])
      expect(job?.payload).toEqual({ transferId: id })
      // The callback is delayed by the configured 5 s.
      expect(job?.run_at.getTime()).toBeGreaterThanOrEqual(started + 5000)
      expect(deliveriesOf(bankUpdates, id)).toEqual([])

      await runFiatCallbackJob(deps, { transferId: id })
      expect(deliveriesOf(bankUpdates, id)).toEqual([
        { transfer: { ...transfer, status: 'success' }, inTransaction: true },
      ])
      expect(await deps.rails.banks.getTransfer(id)).toEqual({ ...transfer, status: 'success' })
      // A job that runs again (at-least-once runner) delivers nothing more.
      await runFiatCallbackJob(deps, { transferId: id })
      expect(deliveriesOf(bankUpdates, id)).toHaveLength(1)
      expect(deliveriesOf(momoUpdates, id)).toEqual([])
    })

    test('behavior: an account ending 0000 fails at the callback with a reason', async () => {
      const id = nextId()
      await payToBank(id, '0123450000')
      await runFiatCallbackJob(deps, { transferId: id })
      const [delivery] = deliveriesOf(bankUpdates, id)
      expect(delivery?.transfer).toMatchObject({
        status: 'failed',
        failureReason: expect.stringContaining('sandbox'),
      })
      expect(await deps.rails.banks.getTransfer(id)).toMatchObject({ status: 'failed' })
    })

    test('behavior: an account ending 1111 stays processing until the callback is fired, once', async () => {
      const id = nextId()
      await payToBank(id, '0123451111')
      expect(await callbackJobs(id)).toEqual([])
      expect(await deps.rails.banks.getTransfer(id)).toMatchObject({ status: 'processing' })
      const controls = deps.rails.sandboxControls
      if (!controls) {
        throw new Error('sandbox controls missing')
      }
      const fired = await controls.completeFiatTransfer({
        id,
        outcome: 'failed',
        failureReason: 'Account dormant',
      })
      expect(fired).toMatchObject({ status: 'failed', failureReason: 'Account dormant' })
      expect(deliveriesOf(bankUpdates, id).map((d) => d.transfer)).toEqual([fired])
      await expect(controls.completeFiatTransfer({ id, outcome: 'success' })).rejects.toMatchObject({
        code: 'transfer_already_completed',
      })
      expect(deliveriesOf(bankUpdates, id)).toHaveLength(1)
    })

    test('behavior: an account ending 2222 times out, yet the provider has it: re-query and retry find one transfer', async () => {
      const id = nextId()
      const input = await bankTransfer(id, '0123452222')
      const error = await deps.rails.banks.transfer(input).catch((e: unknown) => e)
      expect(isAppError(error, 'provider_unavailable')).toBe(true)
      const requeried = await deps.rails.banks.getTransfer(id)
      expect(requeried).toMatchObject({ id, status: 'processing' })
      // A retry with the same id is answered (no second transfer, no second timeout).
      expect(await deps.rails.banks.transfer(input)).toEqual(requeried)
      expect(await callbackJobs(id)).toHaveLength(1)
      await runFiatCallbackJob(deps, { transferId: id })
      expect(await deps.rails.banks.getTransfer(id)).toMatchObject({ status: 'success' })
    })

    test('behavior: the same id is one transfer, also when sent concurrently; other details are rejected', async () => {
      const id = nextId()
      const input = await bankTransfer(id, '0123456789', 2_500n)
      const results = await Promise.all(Array.from({ length: 8 }, () => deps.rails.banks.transfer(input)))
      expect(new Set(results.map((r) => r.providerReference)).size).toBe(1)
      const rows = await deps.db
        .selectFrom('sandbox_fiat_transfers')
        .select('id')
        .where('id', '=', id)
        .execute()
      expect(rows).toHaveLength(1)
      expect(await callbackJobs(id)).toHaveLength(1)
      await expect(deps.rails.banks.transfer({ ...input, amount: 2_501n })).rejects.toMatchObject({
        code: 'idempotency_key_reused',
      })
      await expect(deps.rails.banks.getTransfer(nextId())).rejects.toMatchObject({ code: 'not_found' })
      // A bank transfer is not a mobile-money transfer.
      await expect(deps.rails.mobileMoney.getTransfer(id)).rejects.toMatchObject({ code: 'not_found' })
    })

    test('behavior: a subscriber that throws rolls the callback back; the retry delivers it', async () => {
      const id = nextId()
      await payToBank(id, '0123456789')
      const unsubscribe = deps.rails.banks.onTransferUpdate(async () => {
        throw new Error('consumer down')
      })
      await expect(runFiatCallbackJob(deps, { transferId: id })).rejects.toThrow('consumer down')
      expect(await deps.rails.banks.getTransfer(id)).toMatchObject({ status: 'processing' })
      unsubscribe()
      await runFiatCallbackJob(deps, { transferId: id })
      expect(await deps.rails.banks.getTransfer(id)).toMatchObject({ status: 'success' })
    })

    test('behavior: zero amounts and non-NUBAN accounts are validation errors and record nothing', async () => {
      const id = nextId()
      const account = await bankAccount('0123456789')
      await expect(
        deps.rails.banks.transfer({ id, amount: 0n, currency: 'NGN', account, narration: 'x' }),
      ).rejects.toMatchObject({ code: 'validation_error' })
      await expect(
        deps.rails.banks.transfer({
          id,
          amount: 1n,
          currency: 'NGN',
          account: { ...account, accountNumber: '123' },
          narration: 'x',
        }),
      ).rejects.toMatchObject({ code: 'validation_error' })
      await expect(deps.rails.banks.getTransfer(id)).rejects.toMatchObject({ code: 'not_found' })
    })
  })

  describe('mobile money', () => {
    const wallet = (phoneNumber: string, institutionCode = 'MPESA'): Promise<MobileMoneyResolution> =>
      deps.rails.mobileMoney.resolveAccount({ phoneNumber, institutionCode, accountName: 'Wanjiru Kamau' })

    test('default: institutions per corridor', () => {
      expect(deps.rails.mobileMoney.listInstitutions('KES').map((i) => i.name)).toEqual([
        'M-Pesa',
        'Airtel Money',
      ])
      expect(deps.rails.mobileMoney.listInstitutions('GHS').map((i) => i.name)).toEqual([
        'MTN MoMo',
        'Vodafone Cash',
        'AirtelTigo Money',
      ])
    })

    test('default: each steered outcome by the phone number ending', async () => {
      const send = async (phone: string, institution: string, currency: 'KES' | 'GHS') => {
        const id = nextId()
        const result = await deps.rails.mobileMoney
          .transfer({
            id,
            amount: 5_000n,
            currency,
            account: await wallet(phone, institution),
            narration: 'x',
          })
          .catch((e: unknown) => e)
        return { id, result }
      }
      const ok = await send('0712345678', 'MPESA', 'KES')
      const failing = await send('0712340000', 'MPESA', 'KES')
      const held = await send('0241231111', 'MTN_GH', 'GHS')
      const timedOut = await send('0241232222', 'MTN_GH', 'GHS')
      expect(ok.result).toMatchObject({ status: 'processing' })
      expect(isAppError(timedOut.result, 'provider_unavailable')).toBe(true)
      expect(await callbackJobs(held.id)).toEqual([])
      for (const { id } of [ok, failing, timedOut]) {
        await runFiatCallbackJob(deps, { transferId: id })
      }
      expect(await deps.rails.mobileMoney.getTransfer(ok.id)).toMatchObject({ status: 'success' })
      expect(await deps.rails.mobileMoney.getTransfer(failing.id)).toMatchObject({ status: 'failed' })
      expect(await deps.rails.mobileMoney.getTransfer(timedOut.id)).toMatchObject({ status: 'success' })
      expect(await deps.rails.mobileMoney.getTransfer(held.id)).toMatchObject({ status: 'processing' })
      await deps.rails.sandboxControls?.completeFiatTransfer({ id: held.id, outcome: 'success' })
      expect(await deps.rails.mobileMoney.getTransfer(held.id)).toMatchObject({ status: 'success' })
      expect(
        momoUpdates.filter((d) => [ok.id, failing.id, held.id, timedOut.id].includes(d.transfer.id)),
      ).toHaveLength(4)
      expect(momoUpdates.every((d) => d.inTransaction)).toBe(true)
    })

    test('behavior: a currency the institution does not pay out is rejected', async () => {
      await expect(
        deps.rails.mobileMoney.transfer({
          id: nextId(),
          amount: 1n,
          currency: 'GHS',
          account: await wallet('0712345678'),
          narration: 'x',
        }),
      ).rejects.toMatchObject({ code: 'validation_error' })
    })
  })

  describe('virtual accounts', () => {
    test('default: an account per id for an 11-digit BVN; a repeated create returns it', async () => {
      const id = nextId()
      const account = await deps.rails.virtualAccounts.create({
        id,
        bvn: '22123456789',
        accountName: 'Ada Obi',
      })
      expect(account).toEqual({
        currency: 'NGN',
        accountNumber: expect.stringMatching(/^\d{10}$/),
        accountName: 'Ada Obi',
        bankName: 'Wema Bank',
        bankCode: '035',
        accountReference: id,
      })
      expect(
        await deps.rails.virtualAccounts.create({ id, bvn: '22123456789', accountName: 'Ada Obi' }),
      ).toEqual(account)
      const other = await deps.rails.virtualAccounts.create({
        id: nextId(),
        bvn: '22123456789',
        accountName: 'Ada Obi',
      })
      expect(other.accountNumber).not.toBe(account.accountNumber)
      await expect(
        deps.rails.virtualAccounts.create({ id, bvn: '22123456780', accountName: 'Ada Obi' }),
      ).rejects.toMatchObject({ code: 'idempotency_key_reused' })
      // No BVN at rest: only its hash.
      const row = await deps.db
        .selectFrom('sandbox_virtual_accounts')
        .selectAll()
        .where('account_reference', '=', id)
        .executeTakeFirstOrThrow()
      expect(JSON.stringify(row)).not.toContain('22123456789')
    })

    test('behavior: BVNs that are not 11 digits are validation errors', async () => {
      for (const bvn of ['2212345678', '221234567890', '2212345678a', '', ' 22123456789']) {
        await expect(
          deps.rails.virtualAccounts.create({ id: nextId(), bvn, accountName: 'Ada Obi' }),
          bvn,
        ).rejects.toMatchObject({ code: 'validation_error', context: { param: 'bvn' } })
      }
    })

    test('default: an inbound transfer is delivered once, in the recording transaction', async () => {
      const controls = deps.rails.sandboxControls
      if (!controls) {
        throw new Error('sandbox controls missing')
      }
      const account = await deps.rails.virtualAccounts.create({
        id: nextId(),
        bvn: '22123456789',
        accountName: 'Ada Obi',
        merchantId: 'mer_a',
        environment: 'test',
      })
      const received: { reference: string; amount: bigint; inTransaction: boolean }[] = []
      const unsubscribe = deps.rails.virtualAccounts.onInboundTransfer(async (db, transfer) => {
        received.push({
          reference: transfer.reference,
          amount: transfer.amount,
          inTransaction: db.isTransaction,
        })
      })
      const input = {
        accountNumber: account.accountNumber,
        amount: 250_000n,
        reference: `ref_${nextId()}`,
        payer: { accountName: 'EMEKA EZE', bankCode: '044' },
        merchantId: 'mer_a',
        environment: 'test' as const,
      }
      const first = await controls.simulateInboundTransfer(input)
      expect(first).toMatchObject({
        delivered: true,
        transfer: {
          accountReference: account.accountReference,
          environment: 'test',
          amount: 250_000n,
          currency: 'NGN',
          payer: { accountName: 'EMEKA EZE', bankName: 'Access Bank', bankCode: '044' },
        },
      })
      const again = await controls.simulateInboundTransfer(input)
      expect(again).toEqual({ ...first, delivered: false })
      expect(received).toEqual([{ reference: input.reference, amount: 250_000n, inTransaction: true }])
      await expect(controls.simulateInboundTransfer({ ...input, amount: 1n })).rejects.toMatchObject({
        code: 'idempotency_key_reused',
      })
      // Another merchant, the live environment, or an unknown number: no such account.
      for (const other of [
        { merchantId: 'mer_b' },
        { environment: 'live' as const },
        { accountNumber: '9000000000' },
      ]) {
        await expect(
          controls.simulateInboundTransfer({ ...input, reference: nextId(), ...other }),
        ).rejects.toMatchObject({
          code: 'not_found',
        })
      }
      expect(received).toHaveLength(1)
      unsubscribe()
    })
  })
})
