import { describe, expect, test } from 'vitest'
import { parseDevnetFlags } from './devnet-flags.js'

describe('parseDevnetFlags', () => {
  test('default: repeatable --fork and --fund, in both spellings, the rest left in order', () => {
    const flags = parseDevnetFlags([
      '--port',
      '0',
      '--fork',
      'eip155:84532=http://127.0.0.1:8545',
      '--fund=0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      '--fork=eip155:42161=https://arb.example/v2/key?x=1',
      '--fund',
      '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      '--help',
    ])
    expect(flags).toEqual({
      forks: [
        { network: 'eip155:84532', rpcUrl: 'http://127.0.0.1:8545' },
        { network: 'eip155:42161', rpcUrl: 'https://arb.example/v2/key?x=1' },
      ],
      fund: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
      rest: ['--port', '0', '--help'],
    })
  })

  test('default: no flags gives empty lists', () => {
    expect(parseDevnetFlags([])).toEqual({ forks: [], fund: [], rest: [] })
  })

  test.each([
    [['--fork'], '--fork: missing value'],
    [['--fork', 'eip155:84532'], 'expected <caip2>=<rpc-url>'],
    [
      ['--fork', 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1=http://x'],
      'Solana has no fork here, it stays on LiteSVM',
    ],
    [['--fork', 'base=http://x'], 'is not an EVM network'],
    [['--fork', 'eip155:84532=not a url'], 'the RPC URL is not a URL'],
    [['--fork', 'eip155:84532=file:///etc/passwd'], 'must be http(s) or ws(s)'],
    [['--fork', 'eip155:1=http://a', '--fork', 'eip155:1=http://b'], 'eip155:1 is forked twice'],
    [['--fund', '0x1234'], 'is not an EVM address'],
    [['--fund'], '--fund: missing value'],
  ])('behavior: %j is refused with a message naming the flag', (argv, message) => {
    expect(() => parseDevnetFlags(argv)).toThrow(message)
    try {
      parseDevnetFlags(argv)
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request' })
    }
  })
})
