import './errors.js'
import { randomUUID } from 'node:crypto'
import {
  AppError,
  createAssetRegistry,
  decodePaymentResponseHeader,
  parseDollarPrice,
  type SchemeClient,
  type SettleResponse,
  X402_HEADERS,
} from '@tollgate/core'
import {
  type Candidate,
  formatUsd,
  getPayableCandidates,
  isHostAllowed,
  toUsd,
  USD_DECIMALS,
} from './choose-requirement.js'
import { createPaymentHeader } from './create-payment-header.js'
import { createSchemeClients, isEvmKey, toEvmAccount } from './create-scheme-clients.js'
import { createPermit2Approver } from './ensure-permit2-approval.js'
import { parsePaymentRequired } from './parse-payment-required.js'
import { createMemorySpendLedger, type SpendLedger } from './spend-ledger.js'
import type {
  BalanceReader,
  PaymentQuote,
  PaymentRecord,
  Permit2Approver,
  SpendPolicy,
  WrapFetchOptions,
} from './types.js'

/** A fetch-compatible function. */
export type FetchLike = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>

const DAY_MS = 24 * 60 * 60 * 1000
const records = new WeakMap<Response, PaymentRecord>()

/** What the agent paid for `response` (a response returned by a {@link wrapFetch} fetch), if anything. */
export function getPaymentRecord(response: Response): PaymentRecord | undefined {
  return records.get(response)
}

/** The decoded settlement receipt (`PAYMENT-RESPONSE`, else `X-PAYMENT-RESPONSE`) of a response, if any. */
export function getPaymentReceipt(response: Response): SettleResponse | undefined {
  const header =
    response.headers.get(X402_HEADERS.paymentResponse) ?? response.headers.get(X402_HEADERS.xPaymentResponse)
  if (!header) {
    return undefined
  }
  try {
    return decodePaymentResponseHeader(header)
  } catch {
    return undefined
  }
}

/**
 * Wraps `fetch` so a 402 is paid once and the request retried once: it reads the offer (v2 header
 * or v1 body), picks the cheapest option it holds a key for and the policy allows, signs it and
 * sends it back (`PAYMENT-SIGNATURE`, or `X-PAYMENT` to v1 servers). Refusals throw `AppError`s
 * (`payment_policy_refused` with the rule, `payment_unpayable`, `payment_insufficient_balance`,
 * `payment_already_attempted`); nothing is signed then.
 *
 * @example
 * const pay = wrapFetch(fetch, { wallets: { evm: process.env.KEY }, policy: { maxPerPayment: '$0.05' } })
 * const response = await pay('https://api.example.com/weather')
 * console.log(getPaymentReceipt(response)?.transaction)
 */
export function wrapFetch(fetch: FetchLike, options: WrapFetchOptions = {}): FetchLike {
  const policy = options.policy ?? {}
  const assets = options.assets ?? createAssetRegistry()
  const now = options.now ?? Date.now
  const ledger = options.ledger ?? createMemorySpendLedger({ now })
  const maxPerDay =
    policy.maxPerDay !== undefined ? parseDollarPrice(policy.maxPerDay, USD_DECIMALS) : undefined
  let clients: Promise<SchemeClient[]> | undefined
  const getClients = () => {
    clients ??= createSchemeClients(options.wallets ?? {}).then((own) => [...(options.clients ?? []), ...own])
    return clients
  }
  let approver: Permit2Approver | undefined
  const getPermit2Approver = (): Permit2Approver | undefined => {
    const evm = options.wallets?.evm
    if (options.permit2Approver || !options.autoApprovePermit2 || !isEvmKey(evm)) {
      return options.permit2Approver
    }
    approver ??= createPermit2Approver({
      account: toEvmAccount(evm),
      rpcs: options.wallets?.rpcs ?? {},
    })
    return approver
  }
  const reserve = createSpendReserver(ledger, maxPerDay, now)

  return async (input, init) => {
    const request = new Request(input, init)
    const retry = request.clone()
    const response = await fetch(request)
    if (response.status !== 402) {
      return response
    }
    const url = request.url
    await refuseRepeatOrHost(request, response, policy)
    const offer = await parsePaymentRequired(response, url)
    const candidates = getPayableCandidates(offer.accepts, {
      url,
      clients: await getClients(),
      assets,
      policy,
    })
    const chosen = await chooseAffordable(options.balances, candidates, url)
    const { requirements, client, asset } = chosen
    const quote: PaymentQuote = {
      url,
      method: request.method,
      x402Version: offer.x402Version,
      scheme: chosen.scheme,
      requirements,
      asset,
      usd: formatUsd(chosen.usd),
      payer: client.getAddress(requirements.network) ?? '',
    }
    if (policy.approve && !(await policy.approve(quote))) {
      throw new AppError('payment_policy_refused', {
        context: { rule: 'approval', url, detail: 'the approval callback declined' },
        message: `payment refused by policy (approval): $${quote.usd} to ${requirements.payTo} was not approved`,
      })
    }
    const permit2Approver = getPermit2Approver()
    if (chosen.scheme === 'permit2' && permit2Approver) {
      await permit2Approver({
        network: requirements.network,
        token: requirements.asset,
        owner: quote.payer,
        amount: BigInt(requirements.amount),
      })
    }
    const entryId = await reserve(toUsd(BigInt(requirements.amount), asset.decimals), {
      url,
      network: requirements.network,
      asset: asset.symbol,
      amount: requirements.amount,
    })
    let header: { name: string; value: string }
    try {
      header = createPaymentHeader(offer, chosen.index, await client.createPayload(requirements))
    } catch (error) {
      await ledger.remove(entryId)
      throw error
    }
    retry.headers.set(header.name, header.value)
    const paid = await fetch(retry)
    const receipt = getPaymentReceipt(paid)
    const record: PaymentRecord = { ...quote, status: paid.status, ...(receipt ? { receipt } : {}) }
    records.set(paid, record)
    options.onPayment?.(record)
    return paid
  }
}

/**
 * The daily-limit check and record of a payment, one payment at a time (so concurrent requests
 * cannot overspend): throws `payment_policy_refused` over `maxPerDay`, else records the spend and
 * answers its ledger id.
 */
function createSpendReserver(ledger: SpendLedger, maxPerDay: bigint | undefined, now: () => number) {
  let queue: Promise<unknown> = Promise.resolve()
  return (entryUsd: bigint, describe: { url: string; network: string; asset: string; amount: string }) => {
    const run = queue.then(async () => {
      if (maxPerDay !== undefined) {
        const spent = await ledger.totalSince(now() - DAY_MS)
        if (spent + entryUsd > maxPerDay) {
          throw new AppError('payment_policy_refused', {
            context: { rule: 'max_per_day', url: describe.url, detail: `spent $${formatUsd(spent)} in 24 h` },
            message: `payment refused by policy (max_per_day): $${formatUsd(spent)} spent of $${formatUsd(maxPerDay)} in the last 24 hours`,
          })
        }
      }
      const id = randomUUID()
      await ledger.add({ id, at: now(), usd: entryUsd, ...describe })
      return id
    })
    queue = run.catch(() => undefined)
    return run
  }
}

/** Refuses to pay a 402 answered to a request that already carried a payment, or from a host the policy does not allow. */
async function refuseRepeatOrHost(request: Request, response: Response, policy: SpendPolicy): Promise<void> {
  const url = request.url
  if (request.headers.has(X402_HEADERS.paymentSignature) || request.headers.has(X402_HEADERS.xPayment)) {
    await response.body?.cancel()
    throw new AppError('payment_already_attempted', {
      context: { url },
      message: `${url} answered 402 to a request that already carried a payment; not paying again`,
    })
  }
  if (!isHostAllowed(new URL(url), policy.allowedHosts)) {
    await response.body?.cancel()
    throw new AppError('payment_policy_refused', {
      context: { rule: 'host', url, detail: `${new URL(url).host} is not an allowed host` },
      message: `payment refused by policy (host): ${new URL(url).host} is not an allowed host`,
    })
  }
}

/**
 * The cheapest candidate the payer can afford (balances unknown count as enough); throws
 * `payment_insufficient_balance` naming the cheapest when none is.
 */
async function chooseAffordable(
  balances: BalanceReader | undefined,
  candidates: Candidate[],
  url: string,
): Promise<Candidate> {
  const [cheapest] = candidates
  if (!balances || !cheapest) {
    return cheapest as Candidate
  }
  let short: { candidate: Candidate; available: bigint } | undefined
  for (const candidate of candidates) {
    const { network, asset, amount } = candidate.requirements
    const owner = candidate.client.getAddress(network) ?? ''
    const balance = await balances.getBalance({ network, asset, owner })
    if (balance === undefined || balance >= BigInt(amount)) {
      return candidate
    }
    short ??= { candidate, available: balance }
  }
  const { candidate, available } = short as { candidate: Candidate; available: bigint }
  throw new AppError('payment_insufficient_balance', {
    context: {
      url,
      network: candidate.requirements.network,
      asset: candidate.asset.symbol,
      required: candidate.requirements.amount,
      available: available.toString(),
    },
    message: `insufficient balance: ${candidate.asset.symbol} on ${candidate.requirements.network} holds ${available}, needs ${candidate.requirements.amount} (atomic units)`,
  })
}
