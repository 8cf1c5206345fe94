import { encodeAbiParameters, encodeFunctionData, erc20Abi, hexToBigInt, keccak256, numberToHex } from 'viem'
import { createDevnetError } from '../errors.js'
import type { JsonRpc } from './json-rpc.js'

/**
 * Where a token keeps its balances: the declaration slot of the `address => uint256` mapping and how
 * the key is hashed (`solidity`: keccak(holder . slot); `vyper`: keccak(slot . holder)).
 */
export type BalanceSlot = { slot: bigint; order: 'solidity' | 'vyper' }

/** Mapping slots tried when probing: OpenZeppelin's ERC20 uses 0, Circle's FiatToken 9. */
export const MAX_PROBED_SLOT = 32n

// FiatToken v2.2 packs the blacklist flag into the top bit of the balance word
// (`balanceAndBlacklistStates`); balanceOf masks it off. Every write keeps that bit as it was, which
// changes nothing for layouts where a balance is a whole word (a real balance never reaches 2^255).
const TOP_BIT = 1n << 255n
const LOW_BITS = TOP_BIT - 1n
// A value written while probing, unlikely to be anyone's balance already.
const PROBE = 0x7ab1e5_c0ffee_5107n

const word = (value: bigint) => numberToHex(value, { size: 32 })

/** The storage key of `holder`'s entry in a balance mapping declared at `slot`. */
export function balanceStorageKey(address: `0x${string}`, { slot, order }: BalanceSlot): `0x${string}` {
  // Any letter case: the word is the same, and viem refuses a mixed-case address with a bad checksum.
  const holder = address.toLowerCase() as `0x${string}`
  return keccak256(
    order === 'solidity'
      ? encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, slot])
      : encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }], [slot, holder]),
  )
}

async function readBalance(rpc: JsonRpc, token: `0x${string}`, holder: `0x${string}`): Promise<bigint> {
  const data = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder.toLowerCase() as `0x${string}`],
  })
  return hexToBigInt(await rpc.request<`0x${string}`>('eth_call', [{ to: token, data }, 'latest']))
}

async function readWord(rpc: JsonRpc, token: `0x${string}`, key: `0x${string}`): Promise<bigint> {
  return hexToBigInt(await rpc.request<`0x${string}`>('eth_getStorageAt', [token, key, 'latest']))
}

/**
 * Finds where `token` stores `holder`'s balance, like forge's `deal`: for each candidate mapping slot
 * (0..{@link MAX_PROBED_SLOT}, both key orders) whose word holds the current balance, write a probe
 * value with `anvil_setStorageAt`, see whether `balanceOf` answers it, and put the word back.
 * Works for OpenZeppelin's layout (slot 0) and FiatToken's packed balance-and-blacklist word (slot 9).
 */
export async function findBalanceSlot(
  rpc: JsonRpc,
  token: `0x${string}`,
  holder: `0x${string}`,
): Promise<BalanceSlot> {
  const balance = await readBalance(rpc, token, holder)
  const candidates: BalanceSlot[] = []
  for (let slot = 0n; slot <= MAX_PROBED_SLOT; slot++) {
    candidates.push({ slot, order: 'solidity' }, { slot, order: 'vyper' })
  }
  // One batch of reads first: only words that hold the current balance are worth a write.
  const words = (await rpc.batch(
    candidates.map((c) => ({
      method: 'eth_getStorageAt',
      params: [token, balanceStorageKey(holder, c), 'latest'],
    })),
  )) as `0x${string}`[]
  const probe = balance === PROBE ? PROBE + 1n : PROBE
  for (const [index, candidate] of candidates.entries()) {
    const old = hexToBigInt(words[index] ?? '0x0')
    if ((old & LOW_BITS) !== balance) {
      continue
    }
    const key = balanceStorageKey(holder, candidate)
    await rpc.request('anvil_setStorageAt', [token, key, word((old & TOP_BIT) | probe)])
    const seen = await readBalance(rpc, token, holder)
    await rpc.request('anvil_setStorageAt', [token, key, word(old)])
    if (seen === probe) {
      return candidate
    }
  }
  throw createDevnetError(
    `no balance mapping found for token ${token} in storage slots 0..${MAX_PROBED_SLOT}: ` +
      'fund this token by impersonating a holder (anvil_impersonateAccount) instead',
  )
}

/**
 * Writes balances of one token on an anvil (a fork's real token included), probing its balance slot
 * once ({@link findBalanceSlot}) and keeping the other bits of the word. `set` writes the balance and
 * checks `balanceOf` answers it; `totalSupply` is left alone (as forge's `deal` does by default).
 */
export type TokenBalanceWriter = {
  set(token: `0x${string}`, holder: `0x${string}`, amount: bigint): Promise<void>
  add(token: `0x${string}`, holder: `0x${string}`, amount: bigint): Promise<void>
}

/** Creates a {@link TokenBalanceWriter} over `rpc` that remembers each token's slot. */
export function createTokenBalanceWriter(rpc: JsonRpc): TokenBalanceWriter {
  const slots = new Map<string, Promise<BalanceSlot>>()
  const slotOf = (token: `0x${string}`, holder: `0x${string}`) => {
    const known = slots.get(token.toLowerCase())
    if (known) {
      return known
    }
    const found = findBalanceSlot(rpc, token, holder)
    slots.set(token.toLowerCase(), found)
    // A failed probe is not remembered: the next call tries again.
    found.catch(() => slots.delete(token.toLowerCase()))
    return found
  }
  const set = async (token: `0x${string}`, holder: `0x${string}`, amount: bigint) => {
    if (amount < 0n || amount > LOW_BITS) {
      throw createDevnetError(`token balance ${amount} out of range`)
    }
    const key = balanceStorageKey(holder, await slotOf(token, holder))
    const old = await readWord(rpc, token, key)
    await rpc.request('anvil_setStorageAt', [token, key, word((old & TOP_BIT) | amount)])
    const seen = await readBalance(rpc, token, holder)
    if (seen !== amount) {
      throw createDevnetError(`balanceOf(${holder}) on ${token} is ${seen} after writing ${amount}`)
    }
  }
  return {
    set,
    add: async (token, holder, amount) =>
      set(token, holder, (await readBalance(rpc, token, holder)) + amount),
  }
}
