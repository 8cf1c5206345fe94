import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  devnet as toDevnetUrl,
} from '@solana/kit'
import {
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { deriveSolanaKeypair } from './derive-solana-keypair.js'
import { DEVNET_USDT_MINT } from './solana-fixtures.js'
import { SOLANA_DEVNET_NETWORK, type SolanaDevnet, startSolanaDevnet } from './start-solana-devnet.js'

const COMPUTE_BUDGET = address('ComputeBudget111111111111111111111111111111')

let devnet: SolanaDevnet
let url: string
let rpc: ReturnType<typeof createSolanaRpc<ReturnType<typeof toDevnetUrl>>>
let payer: KeyPairSigner
let relayer: KeyPairSigner
let usdc: Address

type RawResponse = { result?: unknown; error?: { code: number; message: string; data?: unknown } }

async function callRaw(method: string, params: unknown[] = []): Promise<RawResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as RawResponse
}

function computeBudget(limit: number, microLamports: bigint): Instruction[] {
  const limitData = new Uint8Array(5)
  limitData[0] = 2
  new DataView(limitData.buffer).setUint32(1, limit, true)
  const priceData = new Uint8Array(9)
  priceData[0] = 3
  new DataView(priceData.buffer).setBigUint64(1, microLamports, true)
  return [
    { programAddress: COMPUTE_BUDGET, data: limitData },
    { programAddress: COMPUTE_BUDGET, data: priceData },
  ]
}

async function ataOf(owner: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: usdc, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  return ata
}

/** The x402 layout: limit, price, transferChecked; signed by the payer, then (unless `partial`) by the fee payer. */
async function buildTransfer(
  to: Address,
  amount: bigint,
  options: { partial?: boolean; blockhash?: { blockhash: Blockhash; lastValidBlockHeight: bigint } } = {},
) {
  const lifetime = options.blockhash ?? (await rpc.getLatestBlockhash().send()).value
  const transfer = getTransferCheckedInstruction({
    source: await ataOf(payer.address),
    mint: usdc,
    destination: await ataOf(to),
    authority: payer,
    amount,
    decimals: 6,
  })
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(relayer.address, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions([...computeBudget(20_000, 1n), transfer], m),
  )
  const partiallySigned = await partiallySignTransactionMessageWithSigners(message)
  return options.partial ? partiallySigned : await signTransaction([relayer.keyPair], partiallySigned)
}

async function newRecipient(): Promise<Address> {
  const recipient = (await generateKeyPairSigner()).address
  await devnet.fund({ network: SOLANA_DEVNET_NETWORK, address: recipient, asset: 'USDC', amount: 0n })
  return recipient
}

beforeAll(async () => {
  devnet = await startSolanaDevnet({})
  const network = devnet.networks[SOLANA_DEVNET_NETWORK]
  url = network?.rpcUrl ?? ''
  usdc = address(network?.assets.USDC?.address ?? '')
  rpc = createSolanaRpc(toDevnetUrl(url))
  const keyOf = (role: string) => devnet.wallets.find((w) => w.role === role)?.privateKey ?? ''
  payer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(keyOf('payer')))
  relayer = await createKeyPairSignerFromBytes(getBase58Encoder().encode(keyOf('relayer')))
})

afterAll(async () => {
  await devnet?.stop()
})

describe('startSolanaDevnet', () => {
  test('default: manifest lists the network, the three tokens and deterministic wallets', async () => {
    const network = devnet.networks[SOLANA_DEVNET_NETWORK]
    expect(network?.kind).toBe('svm')
    expect(network?.assets.USDC).toMatchObject({
      address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      decimals: 6,
      transferMethods: ['solana'],
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    expect(network?.assets.USDC2022).toMatchObject({
      decimals: 6,
      tokenProgram: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
    })
    expect(network?.assets.USDT).toEqual({
      symbol: 'USDT',
      address: DEVNET_USDT_MINT,
      decimals: 6,
      transferMethods: ['solana'],
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    expect(deriveSolanaKeypair('solana:usdt-mint').address).toBe(DEVNET_USDT_MINT)
    expect(devnet.wallets.map((w) => w.role)).toEqual(['payer', 'payer', 'relayer', 'relayer'])
    const again = await startSolanaDevnet({ payers: 1, relayers: 0 })
    await again.stop()
    expect(again.wallets[0]?.privateKey).toBe(devnet.wallets[0]?.privateKey)
  })

  test('behavior: kit reads blockhash, slot, balances and genesis hash', async () => {
    const { value: latest } = await rpc.getLatestBlockhash().send()
    const slot = await rpc.getSlot().send()
    expect(latest.lastValidBlockHeight).toBe((await rpc.getBlockHeight().send()) + 150n)
    expect(slot).toBeGreaterThan(0n)
    expect((await rpc.getBalance(relayer.address).send()).value).toBe(100_000_000_000n)
    expect((await rpc.getTokenAccountBalance(await ataOf(payer.address)).send()).value).toEqual({
      amount: '1000000000000',
      decimals: 6,
      uiAmount: 1_000_000,
      uiAmountString: '1000000',
    })
    expect(
      (await rpc.getGenesisHash().send()).startsWith(SOLANA_DEVNET_NETWORK.slice('solana:'.length)),
    ).toBe(true)
  })

  test('behavior: USDT is a 6-decimal SPL mint; each payer holds 1,000,000 and the supply is their sum', async () => {
    const payers = devnet.wallets.filter((w) => w.role === 'payer')
    for (const wallet of payers) {
      const [ata] = await findAssociatedTokenPda({
        owner: address(wallet.address),
        mint: DEVNET_USDT_MINT,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
      expect((await rpc.getTokenAccountBalance(ata).send()).value).toMatchObject({
        amount: '1000000000000',
        decimals: 6,
      })
    }
    expect((await rpc.getTokenSupply(DEVNET_USDT_MINT).send()).value).toMatchObject({
      amount: String(BigInt(payers.length) * 1_000_000_000_000n),
      decimals: 6,
    })
  })

  test('behavior: getAccountInfo jsonParsed decodes the payer token account', async () => {
    const { value } = await rpc.getAccountInfo(await ataOf(payer.address), { encoding: 'jsonParsed' }).send()
    expect(value?.owner).toBe(TOKEN_PROGRAM_ADDRESS)
    expect(value?.data).toMatchObject({
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: {
          mint: usdc,
          owner: payer.address,
          state: 'initialized',
          tokenAmount: { amount: '1000000000000' },
        },
      },
    })
  })

  test('behavior: getMultipleAccounts slices the amount, answers null for missing accounts, twice alike', async () => {
    const missing = (await generateKeyPairSigner()).address
    const params = [
      [await ataOf(payer.address), missing, payer.address],
      { encoding: 'base64', dataSlice: { offset: 64, length: 8 } },
    ]
    const first = await callRaw('getMultipleAccounts', params)
    const [token, absent, system] = (
      first.result as { value: ({ data: [string, string]; owner: string } | null)[] }
    ).value
    expect(Buffer.from(token?.data[0] ?? '', 'base64').readBigUInt64LE(0)).toBe(1_000_000_000_000n)
    expect(token?.owner).toBe(TOKEN_PROGRAM_ADDRESS)
    expect(absent).toBeNull()
    expect(system).toMatchObject({ owner: '11111111111111111111111111111111', data: ['', 'base64'] })
    // The second read is served from the decoded-address cache and must not differ.
    expect((await callRaw('getMultipleAccounts', params)).result).toEqual(first.result)
  })

  test('error: getMultipleAccounts refuses an address that is not 32 bytes of base58 and more than 100', async () => {
    for (const bad of ['0OIl', '1'.repeat(31), 'z'.repeat(44), 42]) {
      expect((await callRaw('getMultipleAccounts', [[payer.address, bad]])).error).toMatchObject({
        code: -32602,
        message: 'Invalid param: Invalid',
      })
    }
    const many = Array.from({ length: 101 }, () => payer.address)
    expect((await callRaw('getMultipleAccounts', [many])).error).toMatchObject({ code: -32602 })
  })

  test('behavior: transferChecked with a separate fee payer lands and moves balances', async () => {
    const recipient = await newRecipient()
    const before = (await rpc.getBalance(relayer.address).send()).value
    const payerBefore = BigInt(
      (await rpc.getTokenAccountBalance(await ataOf(payer.address)).send()).value.amount,
    )
    const tx = await buildTransfer(recipient, 1_250_000n)
    const signature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' })
      .send()
    expect(signature).toBe(getSignatureFromTransaction(tx))
    const { value: statuses } = await rpc.getSignatureStatuses([signature]).send()
    expect(statuses[0]).toMatchObject({ err: null, confirmationStatus: 'finalized', status: { Ok: null } })
    expect((await rpc.getTokenAccountBalance(await ataOf(recipient)).send()).value.amount).toBe('1250000')
    expect((await rpc.getTokenAccountBalance(await ataOf(payer.address)).send()).value.amount).toBe(
      String(payerBefore - 1_250_000n),
    )
    // 2 signatures x 5000 lamports + ceil(20,000 CU x 1 microlamport / 1e6) priority fee.
    expect(before - (await rpc.getBalance(relayer.address).send()).value).toBe(10_001n)
  })

  test('behavior: getTransaction returns the landed transaction with meta', async () => {
    const recipient = await newRecipient()
    const tx = await buildTransfer(recipient, 7n)
    const signature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' })
      .send()
    const raw = await callRaw('getTransaction', [
      signature,
      { encoding: 'json', maxSupportedTransactionVersion: 0 },
    ])
    const result = raw.result as {
      version: unknown
      slot: number
      transaction: { signatures: string[] }
      meta: { logMessages: string[]; computeUnitsConsumed: number; postTokenBalances: unknown[] }
    }
    expect(result.version).toBe(0)
    expect(result.transaction.signatures[0]).toBe(signature)
    expect(result.meta).toMatchObject({ err: null, status: { Ok: null }, fee: 10_001 })
    expect(result.meta.logMessages).toContain(`Program ${TOKEN_PROGRAM_ADDRESS} success`)
    expect(result.meta.computeUnitsConsumed).toBeGreaterThan(0)
    expect(result.meta.postTokenBalances).toContainEqual(
      expect.objectContaining({
        mint: usdc,
        owner: recipient,
        uiTokenAmount: expect.objectContaining({ amount: '7' }),
      }),
    )
    const viaKit = await rpc
      .getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' })
      .send()
    expect(viaKit?.slot).toBe(BigInt(result.slot))
    const unversioned = await callRaw('getTransaction', [signature])
    expect(unversioned.error?.code).toBe(-32015)
    const history = await rpc.getSignaturesForAddress(await ataOf(recipient)).send()
    expect(history[0]?.signature).toBe(signature)
  })

  test('error: a transfer above the balance fails preflight, and lands with err when preflight is skipped', async () => {
    const recipient = await newRecipient()
    const tx = await buildTransfer(recipient, 10n ** 15n)
    const wire = getBase64EncodedWireTransaction(tx)
    const refused = await callRaw('sendTransaction', [wire, { encoding: 'base64' }])
    expect(refused.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1',
      data: { err: { InstructionError: [2, { Custom: 1 }] } },
    })
    const logs = (refused.error?.data as { logs?: string[] } | undefined)?.logs ?? []
    expect(logs.join('\n')).toContain('insufficient funds')
    const before = (await rpc.getBalance(relayer.address).send()).value
    const sent = await callRaw('sendTransaction', [wire, { encoding: 'base64', skipPreflight: true }])
    const status = await callRaw('getSignatureStatuses', [[sent.result]])
    expect((status.result as { value: unknown[] }).value[0]).toMatchObject({
      err: { InstructionError: [2, { Custom: 1 }] },
      status: { Err: { InstructionError: [2, { Custom: 1 }] } },
    })
    expect(before - (await rpc.getBalance(relayer.address).send()).value).toBe(10_001n)
  })

  test('behavior: simulateTransaction with sigVerify false accepts a partially signed transaction', async () => {
    const recipient = await newRecipient()
    const tx = await buildTransfer(recipient, 5n, { partial: true })
    const { value } = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(tx), {
        encoding: 'base64',
        sigVerify: false,
        commitment: 'confirmed',
      })
      .send()
    expect(value.err).toBeNull()
    expect(value.logs).toContain(`Program ${TOKEN_PROGRAM_ADDRESS} success`)
    expect(value.unitsConsumed).toBeGreaterThan(0n)
    const verified = await callRaw('simulateTransaction', [
      getBase64EncodedWireTransaction(tx),
      { encoding: 'base64', sigVerify: true },
    ])
    expect(verified.error?.code).toBe(-32003)
  })

  test('behavior: simulateTransaction reports accounts and inner instructions on request and can replace the blockhash', async () => {
    const recipient = await newRecipient()
    const { value: lifetime } = await rpc.getLatestBlockhash().send()
    const wire = getBase64EncodedWireTransaction(
      await buildTransfer(recipient, 7n, { partial: true, blockhash: lifetime }),
    )
    const plain = await callRaw('simulateTransaction', [wire, { encoding: 'base64' }])
    expect(plain.result).toMatchObject({ value: { err: null, accounts: null, innerInstructions: null } })
    const source = await ataOf(payer.address)
    const detailed = await callRaw('simulateTransaction', [
      wire,
      { encoding: 'base64', innerInstructions: true, accounts: { addresses: [source], encoding: 'base64' } },
    ])
    const value = (
      detailed.result as { value: { accounts: { data: [string, string] }[]; innerInstructions: unknown } }
    ).value
    expect(value.innerInstructions).toEqual([])
    const data = Buffer.from(value.accounts[0]?.data[0] ?? '', 'base64')
    const before = (await rpc.getTokenAccountBalance(source).send()).value.amount
    expect(data.readBigUInt64LE(64)).toBe(BigInt(before) - 7n)

    devnet.advanceBlocks(151)
    const stale = await callRaw('simulateTransaction', [wire, { encoding: 'base64' }])
    expect(stale.result).toMatchObject({ value: { err: 'BlockhashNotFound' } })
    const replaced = await callRaw('simulateTransaction', [
      wire,
      { encoding: 'base64', replaceRecentBlockhash: true },
    ])
    const { value: latest } = await rpc.getLatestBlockhash().send()
    expect(replaced.result).toMatchObject({
      value: { err: null, replacementBlockhash: { blockhash: latest.blockhash } },
    })
  })

  test('error: malformed transactions are -32602 and a landed one is AlreadyProcessed', async () => {
    expect((await callRaw('simulateTransaction', ['AAAA', { encoding: 'base64' }])).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid params: failed to deserialize/),
    })
    expect(
      (await callRaw('simulateTransaction', ['not base64!', { encoding: 'base64' }])).error,
    ).toMatchObject({
      code: -32602,
      message: 'Invalid params: invalid base64 encoding',
    })
    const wire = getBase64EncodedWireTransaction(await buildTransfer(await newRecipient(), 1n))
    expect(typeof (await callRaw('sendTransaction', [wire, { encoding: 'base64' }])).result).toBe('string')
    expect((await callRaw('sendTransaction', [wire, { encoding: 'base64' }])).error).toMatchObject({
      code: -32002,
      data: { err: 'AlreadyProcessed' },
    })
  })

  test('error: a blockhash older than 150 blocks is refused with Blockhash not found', async () => {
    const recipient = await newRecipient()
    const { value: lifetime } = await rpc.getLatestBlockhash().send()
    devnet.advanceBlocks(150)
    expect((await rpc.isBlockhashValid(lifetime.blockhash).send()).value).toBe(true)
    await callRaw('tollgate_advanceBlocks', [1])
    expect((await rpc.isBlockhashValid(lifetime.blockhash).send()).value).toBe(false)
    expect(await rpc.getBlockHeight().send()).toBe(lifetime.lastValidBlockHeight + 1n)
    const tx = await buildTransfer(recipient, 1n, { blockhash: lifetime })
    const refused = await callRaw('sendTransaction', [
      getBase64EncodedWireTransaction(tx),
      { encoding: 'base64' },
    ])
    expect(refused.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound' },
    })
  })

  test('behavior: JSON-RPC batch, unknown method and bad params use the standard codes', async () => {
    const response = await fetch(url, {
      method: 'POST',
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getSlot' },
        { jsonrpc: '2.0', id: 2, method: 'getNothing' },
        { jsonrpc: '2.0', id: 3, method: 'getBalance', params: ['not-an-address'] },
      ]),
    })
    const body = (await response.json()) as RawResponse[]
    expect(typeof body[0]?.result).toBe('number')
    expect(body[1]?.error?.code).toBe(-32601)
    expect(body[2]?.error?.code).toBe(-32602)
  })

  test('behavior: requestAirdrop lands a transfer with a status', async () => {
    const target = (await generateKeyPairSigner()).address
    const signature = await rpc.requestAirdrop(target, lamports(2_000_000_000n)).send()
    expect((await rpc.getSignatureStatuses([signature]).send()).value[0]?.err).toBeNull()
    expect((await rpc.getBalance(target).send()).value).toBe(2_000_000_000n)
  })
})
