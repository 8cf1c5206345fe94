import { generateKeyPairSync } from 'node:crypto'
import { getBase58Decoder } from '@solana/kit'
import { encodeBase64Json, SOLANA_DEVNET } from '@tollgate/core'
import { describe, expect, test } from 'vitest'
import { HELP, runCli } from './run-cli.js'
import { createOffer, usdcBaseSepolia, usdcSolanaDevnet } from './testing/fakes.js'

// A real Solana keypair in the CLI's env format (base58 of the 32-byte seed + 32-byte public key).
function createSolanaSecret(): string {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url')
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  return getBase58Decoder().decode(new Uint8Array([...seed, ...pub]))
}

function createIo(fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>, env = {}) {
  let stdout = ''
  let stderr = ''
  const decoder = new TextDecoder()
  const requests: Request[] = []
  return {
    io: {
      env: { TOLLGATE_SOLANA_SECRET_KEY: createSolanaSecret(), ...env },
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        requests.push(new Request(input, init))
        return fetch(input, init)
      },
      stdout: {
        write: (chunk: string | Uint8Array) => {
          stdout += typeof chunk === 'string' ? chunk : decoder.decode(chunk)
        },
      },
      stderr: {
        write: (chunk: string) => {
          stderr += chunk
        },
      },
    },
    output: () => ({ stdout, stderr }),
    requests,
  }
}

const ok = async () => new Response('{"hello":"world"}', { status: 200, headers: { 'X-Test': 'yes' } })

describe('runCli', () => {
  test('behavior: pays an EIP-3009 402 with the EVM key and prints the receipt to stderr', async () => {
    const offer = createOffer([usdcBaseSepolia])
    const receipt = { success: true, transaction: '0xfeed', network: 'eip155:84532' }
    const { io, output, requests } = createIo(
      async (input, init) => {
        const request = new Request(input, init)
        return request.headers.has('PAYMENT-SIGNATURE')
          ? new Response('paid content', { headers: { 'PAYMENT-RESPONSE': encodeBase64Json(receipt) } })
          : new Response('{}', { status: 402, headers: { 'PAYMENT-REQUIRED': encodeBase64Json(offer) } })
      },
      { TOLLGATE_EVM_PRIVATE_KEY: `0x${'11'.repeat(32)}` },
    )
    expect(await runCli(['pay', 'https://api.test/weather', '--max', '$0.01'], io)).toBe(0)
    expect(output().stdout).toBe('paid content')
    expect(output().stderr).toContain('paid $0.01 (10000 atomic USDC) on eip155:84532 via eip3009')
    expect(output().stderr).toContain('"transaction":"0xfeed"')
    const header = requests[1]?.headers.get('PAYMENT-SIGNATURE') ?? ''
    const payment = JSON.parse(Buffer.from(header, 'base64').toString('utf8'))
    expect(payment.accepted).toEqual(usdcBaseSepolia)
    expect(payment.payload.authorization).toMatchObject({
      to: usdcBaseSepolia.payTo,
      value: '10000',
      validAfter: '0',
    })
    expect(payment.payload.signature).toMatch(/^0x[0-9a-f]{130}$/)
  })

  test.each([
    ['no receipt and a 402', 402, undefined, ', no settlement receipt'],
    [
      'a failed receipt and a 402',
      402,
      { success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:84532' },
      ': insufficient_funds',
    ],
    [
      'a 500 after a successful receipt',
      500,
      { success: true, transaction: '0xfeed', network: 'eip155:84532' },
      '',
    ],
  ])(
    'behavior: %s is reported as not settled, never "paid", exit 1',
    async (_name, status, receipt, reason) => {
      const offer = createOffer([usdcBaseSepolia])
      const { io, output } = createIo(
        async (input, init) =>
          new Request(input, init).headers.has('PAYMENT-SIGNATURE')
            ? new Response('no', {
                status,
                headers: receipt ? { 'PAYMENT-RESPONSE': encodeBase64Json(receipt) } : {},
              })
            : new Response('{}', { status: 402, headers: { 'PAYMENT-REQUIRED': encodeBase64Json(offer) } }),
        { TOLLGATE_EVM_PRIVATE_KEY: `0x${'11'.repeat(32)}` },
      )
      expect(await runCli(['pay', 'https://api.test/weather', '--max', '$0.01'], io)).toBe(1)
      expect(output().stderr).not.toContain('paid $')
      expect(output().stderr).toContain(`payment not settled (HTTP ${status}${reason}); signed $0.01`)
    },
  )

  test('default: prints the body of a free resource to stdout', async () => {
    const { io, output, requests } = createIo(ok)
    expect(await runCli(['pay', 'http://api.test/free'], io)).toBe(0)
    expect(output()).toEqual({ stdout: '{"hello":"world"}', stderr: '' })
    expect(requests[0]?.method).toBe('GET')
  })

  test('behavior: --help documents the command', async () => {
    const { io, output } = createIo(ok)
    expect(await runCli(['--help'], io)).toBe(0)
    expect(output().stdout).toBe(HELP)
    expect(HELP).toContain('TOLLGATE_EVM_PRIVATE_KEY')
    expect(HELP).toContain('--max <dollars>')
  })

  test('behavior: curl-like -X, -H, -d and -i', async () => {
    const { io, output, requests } = createIo(ok)
    const status = await runCli(
      [
        'pay',
        'http://api.test/x',
        '-X',
        'PUT',
        '-H',
        'Content-Type: application/json',
        '-H',
        'X-A: 1',
        '-d',
        '{"a":1}',
        '-i',
      ],
      io,
    )
    expect(status).toBe(0)
    const request = requests[0]
    expect(request?.method).toBe('PUT')
    expect(request?.headers.get('content-type')).toBe('application/json')
    expect(request?.headers.get('x-a')).toBe('1')
    expect(await request?.text()).toBe('{"a":1}')
    expect(output().stderr).toContain('HTTP 200')
    expect(output().stderr).toContain('x-test: yes')
  })

  test('behavior: -d alone means POST with a form content type, as curl', async () => {
    const { io, requests } = createIo(ok)
    await runCli(['pay', 'http://api.test/x', '-d', 'a=1'], io)
    expect(requests[0]?.method).toBe('POST')
    expect(requests[0]?.headers.get('content-type')).toBe('application/x-www-form-urlencoded')
  })

  test.each([
    [['pay'], 'expected exactly one <url>'],
    [['fly', 'http://x'], 'unknown command "fly"'],
    [['pay', 'http://x', '--rpc', 'nonsense'], '--rpc expects network=url'],
    [['pay', 'http://x', '-H', 'novalue'], '--header expects "Name: value"'],
    [['pay', 'http://x', '--bogus'], "Unknown option '--bogus'"],
  ])('behavior: usage error %j exits 2', async (argv, message) => {
    const { io, output } = createIo(ok)
    expect(await runCli(argv, io)).toBe(2)
    expect(output().stderr).toContain(message)
  })

  test('behavior: no key in the environment is a usage error', async () => {
    const { io, output } = createIo(ok)
    expect(await runCli(['pay', 'http://api.test/x'], { ...io, env: {} })).toBe(2)
    expect(output().stderr).toContain('TOLLGATE_SOLANA_SECRET_KEY')
  })

  test('behavior: an unreachable Solana RPC names the URL and the --rpc flag', async () => {
    const offer = createOffer([
      {
        ...usdcSolanaDevnet,
        payTo: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG',
        extra: { feePayer: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG' },
        asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      },
    ])
    const { io, output } = createIo(
      async () =>
        new Response('{}', { status: 402, headers: { 'PAYMENT-REQUIRED': encodeBase64Json(offer) } }),
    )
    const status = await runCli(
      ['pay', 'http://api.test/x', '--rpc', `${SOLANA_DEVNET}=http://127.0.0.1:1`],
      io,
    )
    expect(status).toBe(1)
    expect(output().stderr).toContain('[rpc_failed]')
    expect(output().stderr).toContain(`to http://127.0.0.1:1 (--rpc RPC for ${SOLANA_DEVNET}) failed`)
    expect(output().stderr).toContain(`pass --rpc ${SOLANA_DEVNET}=<url>`)
  })

  test('behavior: a payment above --max is refused with its code and exit 1', async () => {
    const offer = createOffer([
      {
        ...usdcSolanaDevnet,
        payTo: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG',
        extra: { feePayer: 'Fm6GfQr8pWqFVcgYTa6uVZYkF8CVYcr6RrYsm8pi6ZfG' },
        asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      },
    ])
    const { io, output, requests } = createIo(
      async () =>
        new Response('{}', { status: 402, headers: { 'PAYMENT-REQUIRED': encodeBase64Json(offer) } }),
    )
    const status = await runCli(
      ['pay', 'http://api.test/x', '--max', '0.001', '--rpc', `${SOLANA_DEVNET}=http://127.0.0.1:1`],
      io,
    )
    expect(status).toBe(1)
    expect(output().stderr).toContain('[payment_policy_refused]')
    expect(output().stderr).toContain('max_per_payment')
    expect(requests).toHaveLength(1)
  })

  test('behavior: address prints the key’s address; --smart-account needs a known type and an EVM --rpc', async () => {
    const key = `0x${'11'.repeat(32)}`
    const run = async (argv: string[], env: Record<string, string> = { TOLLGATE_EVM_PRIVATE_KEY: key }) => {
      const { io, output } = createIo(ok, env)
      return { status: await runCli(argv, io), ...output() }
    }
    expect(await run(['address'])).toMatchObject({
      status: 0,
      stdout: '0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A\n',
    })
    expect((await run(['address'], {})).stderr).toContain('set TOLLGATE_EVM_PRIVATE_KEY')
    expect(
      (await run(['address', '--smart-account', 'kernel', '--rpc', 'eip155:1=http://x'])).stderr,
    ).toContain('--smart-account supports safe, got "kernel"')
    expect((await run(['address', '--smart-account', 'safe'])).stderr).toContain(
      '--smart-account needs --rpc',
    )
    const approve = await run(['pay', 'https://api.test/x', '--smart-account', 'safe', '--approve-permit2'])
    expect(approve).toMatchObject({ status: 2 })
    expect(approve.stderr).toContain('approve Permit2 from the Safe itself')
    expect(HELP).toContain('tollgate address [--smart-account safe --rpc <net=url>]')
  })
})
