import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateKeyPairSigner } from '@solana/kit'
import { type LocalDevnet, SOLANA_DEVNET_NETWORK, startDevnet } from '@tollgate/devnet'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { getLedgerTransaction } from '../../ledger/get-ledger-transaction.js'
import { describeEachDatabase } from '../../testing/each-database.js'
import { createHarness, type Harness } from '../../testing/harness.js'
import { sendLamports, sendSplTransfer } from '../../testing/send-solana-transfer.js'
import { fundSolanaTreasury, readSolanaTokenBalance } from '../../testing/solana-treasury.js'
import { waitCommittedTransfer } from '../../testing/wait-committed-transfer.js'
import { createRails } from '../create-rails.js'
import type { ChainAsset, CryptoSend, IncomingTransfer, Rails } from '../types.js'
import { createJsonRpc } from './json-rpc.js'
import { runSweepJob } from './run-sweep-job.js'

// Outbound Solana sends on the LiteSVM devnet: SPL and SOL from the treasury, exactly once per key,
// and two processes on one database (a send left by a dead process is resumed by the other).

let devnet: LocalDevnet
let dropSends = true
let proxy: Server

beforeAll(async () => {
  devnet = await startDevnet({ evm: false })
  const target = devnet.networks[SOLANA_DEVNET_NETWORK]?.rpcUrl ?? ''
  // A node whose sendTransaction never reaches the chain (HTTP 503): the process behind it records a
  // signed transaction that nobody broadcasts, as one that died right after recording would.
  proxy = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    req.on('end', () => {
      if (dropSends && body.includes('"sendTransaction"')) {
        res.writeHead(503).end()
        return
      }
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) =>
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
        )
        .catch(() => res.writeHead(502).end())
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve))
  await devnet?.stop()
})

describeEachDatabase('Solana sends on the devnet', (getDb, engine) => {
  let h: Harness
  let rails: Rails
  let usdc: ChainAsset
  const settled: CryptoSend[] = []
  const seed = `${engine === 'pglite' ? 'e' : 'f'}3`.repeat(64)
  const rpc = () =>
    createJsonRpc(devnet.networks[SOLANA_DEVNET_NETWORK]?.rpcUrl ?? '', { network: SOLANA_DEVNET_NETWORK })
  const usdcOf = (owner: string) => readSolanaTokenBalance(devnet, owner, usdc)
  // A process whose node drops every sendTransaction: it records a signed transaction nobody sends.
  const createDyingRails = () => {
    dropSends = true
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    return createRails(h.deps, {
      masterSeed: seed,
      networks: {
        [SOLANA_DEVNET_NETWORK]: { ...devnet.networks[SOLANA_DEVNET_NETWORK], rpcUrl: proxyUrl },
      } as typeof devnet.networks,
      sendLeaseMs: 600,
    })
  }
  const lamportsOf = async (owner: string) =>
    BigInt(((await rpc().request('getBalance', [owner])) as { value: number }).value)
  const waitSettled = async (key: string, on: Rails = rails) => {
    for (let i = 0; i < 400; i++) {
      const send = await on.crypto.get(key, 'test')
      if (send && send.status !== 'pending') {
        return send
      }
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`send ${key} not settled`)
  }
  const sendRow = (key: string) =>
    h.deps.db
      .selectFrom('crypto_sends')
      .select(['tx_hashes', 'attempts', 'status'])
      .where('idempotency_key', '=', key)
      .executeTakeFirstOrThrow()

  beforeAll(async () => {
    h = await createHarness(getDb())
    rails = createRails(h.deps, {
      masterSeed: seed,
      networks: devnet.networks,
      pollIntervalMs: 50,
      sendLeaseMs: 600,
      confirmations: { test: { solana: 1 } },
    })
    rails.crypto.onSettled(async (db, send) => {
      expect(db.isTransaction).toBe(true)
      settled.push(send)
    })
    usdc = rails.chains.findAsset('test', 'solana', 'USDC') as ChainAsset
    await fundSolanaTreasury(devnet, rails, 10n ** 12n)
    await rails.start()
  })
  afterAll(async () => {
    await rails?.stop()
  })

  test('default: 20 concurrent USDC sends with one key send once; the recipient gets a token account paid by the treasury', async () => {
    const to = (await generateKeyPairSigner()).address
    const treasury = rails.crypto.getTreasury('test', 'solana')?.address ?? ''
    const lamportsBefore = await lamportsOf(treasury)
    const input = {
      environment: 'test' as const,
      chain: 'solana' as const,
      asset: 'USDC',
      to,
      amount: 2_500_000n,
      idempotencyKey: `sol_once_${engine}`,
    }
    const sends = await Promise.all(Array.from({ length: 20 }, () => rails.crypto.send(input)))
    expect(new Set(sends.map((s) => s.id)).size).toBe(1)
    const final = await waitSettled(input.idempotencyKey)
    expect(final).toMatchObject({ status: 'confirmed', failureReason: null })
    expect(final.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    expect(await usdcOf(to)).toBe(2_500_000n)
    expect((await sendRow(input.idempotencyKey)).tx_hashes).toEqual([final.txHash])
    expect(settled.filter((s) => s.idempotencyKey === input.idempotencyKey)).toHaveLength(1)
    // The treasury paid the fee and the new account's rent (more than the fee alone).
    expect(lamportsBefore - (await lamportsOf(treasury))).toBeGreaterThan(1_000_000n)
    await expect(rails.crypto.send({ ...input, amount: 1n })).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    })
  })

  test('behavior: SOL goes by a system transfer; a send the chain refuses fails with nothing moved', async () => {
    const to = (await generateKeyPairSigner()).address
    await rails.crypto.send({
      environment: 'test',
      chain: 'solana',
      asset: 'SOL',
      to,
      amount: 5_000_000n,
      idempotencyKey: `sol_native_${engine}`,
    })
    expect((await waitSettled(`sol_native_${engine}`)).status).toBe('confirmed')
    expect(await lamportsOf(to)).toBe(5_000_000n)
    const refused = await rails.crypto.send({
      environment: 'test',
      chain: 'solana',
      asset: 'USDC',
      to,
      amount: 10n ** 15n,
      idempotencyKey: `sol_refused_${engine}`,
    })
    const final = await waitSettled(refused.idempotencyKey)
    expect(final.status).toBe('failed')
    expect(final.failureReason).toMatch(/insufficient|0x1|custom/i)
    expect(await usdcOf(to)).toBe(0n)
  })

  test('behavior: a send recorded by a process that died before its broadcast is resumed by another and lands once', async () => {
    const dying = createDyingRails()
    const to = (await generateKeyPairSigner()).address
    const key = `sol_resume_${engine}`
    const first = await dying.crypto.send({
      environment: 'test',
      chain: 'solana',
      asset: 'USDC',
      to,
      amount: 700n,
      idempotencyKey: key,
    })
    expect(first.status).toBe('pending')
    expect(first.txHash).not.toBeNull()
    await dying.stop()
    expect(await usdcOf(to)).toBe(0n)
    // The other process (`rails`, started) takes the send over once the lease runs out.
    const final = await waitSettled(key)
    expect(final).toMatchObject({ status: 'confirmed', txHash: first.txHash })
    expect(await usdcOf(to)).toBe(700n)
    expect((await sendRow(key)).attempts).toHaveLength(1)
  })

  test('behavior: a recorded transaction whose blockhash expired unsent is proven dead and sent again, once', async () => {
    const dying = createDyingRails()
    const other = createRails(h.deps, { masterSeed: seed, networks: devnet.networks, sendLeaseMs: 600 })
    const to = (await generateKeyPairSigner()).address
    const key = `sol_expired_${engine}`
    const first = await dying.crypto.send({
      environment: 'test',
      chain: 'solana',
      asset: 'USDC',
      to,
      amount: 900n,
      idempotencyKey: key,
    })
    await dying.stop()
    // Age the blockhash past its 150 blocks before anyone resumes.
    await rails.stop()
    devnet.solana?.advanceBlocks(200)
    await other.start()
    const final = await waitSettled(key, other)
    await other.stop()
    await rails.start()
    expect(final.status).toBe('confirmed')
    expect(final.txHash).not.toBe(first.txHash)
    const row = await sendRow(key)
    expect(row.attempts.map((a) => a.signature)).toEqual([first.txHash, final.txHash])
    expect(await usdcOf(to)).toBe(900n)
    // The first one can never land now.
    const { value } = (await rpc().request('getSignatureStatuses', [
      [first.txHash],
      { searchTransactionHistory: true },
    ])) as {
      value: unknown[]
    }
    expect(value).toEqual([null])
  })

  // Pays a fresh Solana deposit address (USDC or SOL) from the devnet payer and waits for the watcher to confirm it.
  const payDeposit = async (asset: 'USDC' | 'SOL', amount: bigint) => {
    const address = await rails.addresses.allocate(h.deps.db, {
      merchantId: h.a.id,
      environment: 'test',
      chain: 'solana',
      purpose: 'deposit',
      ownerId: `dep_sol_${asset}_${engine}`,
    })
    const confirmed: IncomingTransfer[] = []
    const unsubscribe = rails.incoming.subscribe('deposit', async (_db, transfer) => {
      if (transfer.status === 'confirmed' && transfer.address.id === address.id) {
        confirmed.push(transfer)
      }
    })
    const payer = devnet.wallets.find((w) => w.network === SOLANA_DEVNET_NETWORK && w.role === 'payer')
    if (!payer) {
      throw new Error('no Solana payer')
    }
    if (asset === 'USDC') {
      await devnet.fund({
        network: SOLANA_DEVNET_NETWORK,
        address: address.address,
        asset: 'USDC',
        amount: 0n,
      })
      await sendSplTransfer(rpc(), {
        secret: payer.privateKey,
        payer: payer.address,
        owner: address.address,
        asset: usdc,
        amount,
      })
    } else {
      await sendLamports(rpc(), { secret: payer.privateKey, to: address.address, lamports: amount })
    }
    for (let i = 0; i < 200 && confirmed.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
    }
    unsubscribe()
    const [transfer] = confirmed
    if (!transfer) {
      throw new Error(`${asset} deposit not confirmed by the watcher`)
    }
    await waitCommittedTransfer(h.deps.db, transfer.id)
    return transfer
  }

  test('behavior: an SPL deposit is swept to the treasury once (the treasury pays the fee, the deposit key co-signs)', async () => {
    const transfer = await payDeposit('USDC', 4_000_000n)
    const treasury = rails.crypto.getTreasury('test', 'solana')?.address ?? ''
    const before = await usdcOf(treasury)
    await Promise.all([
      runSweepJob({ rails }, { transferId: transfer.id }),
      runSweepJob({ rails }, { transferId: transfer.id }),
    ])
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep).toMatchObject({ status: 'confirmed', to: treasury, amount: 4_000_000n })
    expect(await usdcOf(transfer.address.address)).toBe(0n)
    expect(await usdcOf(treasury)).toBe(before + 4_000_000n)
    expect(await lamportsOf(transfer.address.address)).toBe(0n)
    const ledger = await getLedgerTransaction(h.deps, {
      environment: 'test',
      idempotencyKey: `sweep:${sweep.id}`,
    })
    expect(ledger).toMatchObject({ source: 'sweep', txHash: sweep.txHash })
    expect(ledger?.transfers.map((t) => [t.currency, t.amount])).toEqual([['USDC', 4_000_000n]])
  })

  test('behavior: a SOL deposit is swept whole, the fee paid by the treasury', async () => {
    const transfer = await payDeposit('SOL', 50_000_000n)
    await runSweepJob({ rails }, { transferId: transfer.id })
    const sweep = await waitSettled(`sweep:${transfer.id}`)
    expect(sweep).toMatchObject({ status: 'confirmed', amount: 50_000_000n })
    expect(await lamportsOf(transfer.address.address)).toBe(0n)
  })
})
