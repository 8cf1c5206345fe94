import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { isAppError, SOLANA_DEVNET, SOLANA_MAINNET } from '@tollgate/core'
import { CLI_SMART_ACCOUNT_TYPES, createCliSmartAccounts } from './create-cli-smart-accounts.js'
import { createRpcBalanceReader } from './create-rpc-balance-reader.js'
import { toEvmAccount } from './create-scheme-clients.js'
import type { WrapFetchOptions } from './types.js'
import { type FetchLike, getPaymentRecord, wrapFetch } from './wrap-fetch.js'

/** Where the CLI reads its environment and writes its output (injected so tests need no process). */
export type CliIo = {
  env: Record<string, string | undefined>
  fetch: FetchLike
  stdout: { write(chunk: string | Uint8Array): unknown }
  stderr: { write(chunk: string): unknown }
}

export const HELP = `Usage: tollgate pay <url> [options]
       tollgate address [--smart-account safe --rpc <net=url>]

pay: fetches <url> like curl and pays an x402 "402 Payment Required" answer from your wallet,
then prints the response body to stdout and the payment receipt to stderr.
address: prints the address that pays: your key's, or with --smart-account the address of its
Safe on each EVM network given with --rpc (deployed or not: fund it there, and it can pay).

Options:
  -X, --request <method>   HTTP method (default GET, or POST with --data)
  -H, --header <h: v>      Request header, repeatable
  -d, --data <body>        Request body; @file reads it from a file
      --max <dollars>      Largest payment allowed (default $1), e.g. --max 0.05
      --max-per-day <usd>  Cap on what this run may sign in 24 hours
      --rpc <net=url>      RPC URL for a CAIP-2 network, repeatable (Solana payments need one;
                           devnet and mainnet default to the public endpoints)
      --check-balance      Check the token balance before signing (uses --rpc)
      --approve-permit2    Send the one-time Permit2 approval when a Permit2 option needs it
                           (not with --smart-account: approve Permit2 from the Safe itself)
      --smart-account safe Pay from the Safe 1.4.1 smart account that TOLLGATE_EVM_PRIVATE_KEY
                           owns, on each EVM network given with --rpc (needed: its address is read
                           from the chain). An undeployed Safe signs ERC-6492; the facilitator
                           deploys it with the first payment. Safe's payments are eip3009 or permit2.
  -i, --include            Also print the response status and headers to stderr
  -h, --help               Show this help

Keys (environment):
  TOLLGATE_EVM_PRIVATE_KEY     0x-prefixed private key (pays eip3009 / permit2 on EVM networks)
  TOLLGATE_SOLANA_SECRET_KEY   base58 64-byte secret key (pays solana)

Exit status: 0 when the final response is 2xx/3xx, 1 otherwise or when payment is refused,
2 on a usage error.

Examples:
  TOLLGATE_EVM_PRIVATE_KEY=0x… tollgate pay http://127.0.0.1:4021/weather --max 0.05
  TOLLGATE_EVM_PRIVATE_KEY=0x… tollgate address --smart-account safe --rpc eip155:84532=http://127.0.0.1:8545
  TOLLGATE_EVM_PRIVATE_KEY=0x… tollgate pay http://127.0.0.1:4021/weather --smart-account safe \\
    --rpc eip155:84532=http://127.0.0.1:8545
`

const DEFAULT_RPCS: Record<string, string> = {
  [SOLANA_DEVNET]: 'https://api.devnet.solana.com',
  [SOLANA_MAINNET]: 'https://api.mainnet-beta.solana.com',
}

class UsageError extends Error {}

/** Runs `tollgate <args>` (`pay <url>`, `address`); resolves with the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    io.stderr.write(`tollgate: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help || positionals.length === 0) {
    io.stdout.write(HELP)
    return values.help ? 0 : 2
  }
  // The RPC URLs in use, for the hint on an RPC failure.
  let rpcs: Record<string, string> = DEFAULT_RPCS
  try {
    const [command, url, ...rest] = positionals
    rpcs = { ...DEFAULT_RPCS, ...parseRpcs(values.rpc ?? []) }
    if (command === 'address' && !url) {
      return await printAddresses(io, values, rpcs)
    }
    if (command !== 'pay' || !url || rest.length > 0) {
      throw new UsageError(
        command === 'pay' || command === 'address'
          ? 'expected exactly one <url>'
          : `unknown command "${command}"`,
      )
    }
    const key = io.env.TOLLGATE_EVM_PRIVATE_KEY as `0x${string}` | undefined
    const solana = io.env.TOLLGATE_SOLANA_SECRET_KEY
    if (!key && !solana) {
      throw new UsageError('no wallet: set TOLLGATE_EVM_PRIVATE_KEY and/or TOLLGATE_SOLANA_SECRET_KEY')
    }
    if (values['smart-account'] !== undefined && values['approve-permit2']) {
      throw new UsageError('--approve-permit2 needs a key account: approve Permit2 from the Safe itself')
    }
    const evm = key && values['smart-account'] !== undefined ? await getSmartAccounts(key, values, rpcs) : key
    const options: WrapFetchOptions = {
      wallets: { ...(evm ? { evm } : {}), ...(solana ? { solana } : {}), rpcs },
      policy: {
        ...(values.max !== undefined ? { maxPerPayment: values.max } : {}),
        ...(values['max-per-day'] !== undefined ? { maxPerDay: values['max-per-day'] } : {}),
      },
      ...(values['check-balance'] ? { balances: createRpcBalanceReader({ rpcs }) } : {}),
      ...(values['approve-permit2'] ? { autoApprovePermit2: true } : {}),
    }
    const init = await toRequestInit(values)
    const response = await wrapFetch(io.fetch, options)(url, init)
    if (values.include) {
      io.stderr.write(`HTTP ${response.status} ${response.statusText}\n`)
      for (const [name, value] of response.headers) {
        io.stderr.write(`${name}: ${value}\n`)
      }
    }
    io.stdout.write(new Uint8Array(await response.arrayBuffer()))
    writeReceipt(response, io)
    return response.status < 400 ? 0 : 1
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`tollgate: ${error.message}\n`)
      return 2
    }
    const code = isAppError(error) ? ` [${error.code}]` : ''
    io.stderr.write(`tollgate: ${error instanceof Error ? error.message : String(error)}${code}\n`)
    const hint = describeRpcFailure(error, rpcs, values.rpc ?? [])
    if (hint) {
      io.stderr.write(`tollgate: ${hint}\n`)
    }
    return 1
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      request: { type: 'string', short: 'X' },
      header: { type: 'string', short: 'H', multiple: true },
      data: { type: 'string', short: 'd' },
      max: { type: 'string' },
      'max-per-day': { type: 'string' },
      rpc: { type: 'string', multiple: true },
      'check-balance': { type: 'boolean' },
      'approve-permit2': { type: 'boolean' },
      include: { type: 'boolean', short: 'i' },
      'smart-account': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

// An unreachable RPC is the usual first failure of a Solana payment (the public default is not
// the node the merchant's chain runs on): say which URL failed and how to pick another.
function describeRpcFailure(
  error: unknown,
  rpcs: Record<string, string>,
  given: readonly string[],
): string | undefined {
  if (!isAppError(error, 'rpc_failed')) {
    return undefined
  }
  const { network, method } = error.context
  if (!network) {
    return undefined
  }
  const url = rpcs[network]
  const source = given.some((entry) => entry.startsWith(`${network}=`)) ? '--rpc' : 'the default'
  return url
    ? `${method ?? 'a call'} to ${url} (${source} RPC for ${network}) failed; pass --rpc ${network}=<url> for the chain the merchant uses`
    : `no RPC for ${network}; pass --rpc ${network}=<url>`
}

/** `tollgate address`: the key's address, or its smart account's on each EVM network of `--rpc`. */
async function printAddresses(
  io: CliIo,
  values: ReturnType<typeof parse>['values'],
  rpcs: Record<string, string>,
) {
  const key = io.env.TOLLGATE_EVM_PRIVATE_KEY as `0x${string}` | undefined
  if (!key) {
    throw new UsageError('no EVM key: set TOLLGATE_EVM_PRIVATE_KEY')
  }
  if (values['smart-account'] === undefined) {
    io.stdout.write(`${toEvmAccount(key).address}\n`)
    return 0
  }
  for (const account of await getSmartAccounts(key, values, rpcs)) {
    const state = (await account.isDeployed()) ? 'deployed' : 'not deployed yet'
    io.stdout.write(
      `eip155:${account.client.chain?.id} ${account.address} (${values['smart-account']}, ${state})\n`,
    )
  }
  return 0
}

async function getSmartAccounts(
  key: `0x${string}`,
  values: ReturnType<typeof parse>['values'],
  rpcs: Record<string, string>,
) {
  const type = values['smart-account']
  if (!CLI_SMART_ACCOUNT_TYPES.some((t) => t === type)) {
    throw new UsageError(`--smart-account supports ${CLI_SMART_ACCOUNT_TYPES.join(', ')}, got "${type}"`)
  }
  const accounts = await createCliSmartAccounts(key, rpcs)
  if (accounts.length === 0) {
    throw new UsageError('--smart-account needs --rpc <eip155:chainId=url> for each EVM network it pays on')
  }
  return accounts
}

function parseRpcs(entries: readonly string[]): Record<string, string> {
  const rpcs: Record<string, string> = {}
  for (const entry of entries) {
    const at = entry.indexOf('=')
    if (at <= 0) {
      throw new UsageError(`--rpc expects network=url, got "${entry}"`)
    }
    rpcs[entry.slice(0, at)] = entry.slice(at + 1)
  }
  return rpcs
}

async function toRequestInit(values: ReturnType<typeof parse>['values']): Promise<RequestInit> {
  const headers = new Headers()
  for (const header of values.header ?? []) {
    const at = header.indexOf(':')
    if (at <= 0) {
      throw new UsageError(`--header expects "Name: value", got "${header}"`)
    }
    headers.append(header.slice(0, at).trim(), header.slice(at + 1).trim())
  }
  const data = values.data
  const body = data?.startsWith('@') ? await readFile(data.slice(1)) : data
  if (body !== undefined && !headers.has('content-type')) {
    // As curl -d does.
    headers.set('Content-Type', 'application/x-www-form-urlencoded')
  }
  return {
    method: values.request ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    ...(body !== undefined ? { body } : {}),
  }
}

// "paid" only when the server settled: a 2xx/3xx answer whose receipt says success. A signed payment
// the server refused or failed to settle (no receipt, `success: false`, or an error status) is
// reported as not settled, with the server's reason when the receipt has one.
function writeReceipt(response: Response, io: CliIo): void {
  const record = getPaymentRecord(response)
  if (!record) {
    return
  }
  const { asset, requirements, receipt } = record
  const what = `$${record.usd} (${requirements.amount} atomic ${asset.symbol}) on ${requirements.network} via ${record.scheme} from ${record.payer} to ${requirements.payTo}`
  if (receipt?.success === true && response.status < 400) {
    io.stderr.write(`tollgate: paid ${what}\n`)
  } else {
    const reason = receipt?.errorReason
      ? `: ${receipt.errorReason}`
      : receipt
        ? ''
        : ', no settlement receipt'
    io.stderr.write(`tollgate: payment not settled (HTTP ${response.status}${reason}); signed ${what}\n`)
  }
  io.stderr.write(`tollgate: receipt ${JSON.stringify(receipt ?? null)}\n`)
}
