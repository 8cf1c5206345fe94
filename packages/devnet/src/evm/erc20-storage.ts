import { encodeAbiParameters, keccak256, numberToHex } from 'viem'
import type { RpcCall } from './json-rpc.js'

// Storage layout of the fixture tokens, inherited from OpenZeppelin's ERC20 (5.x, not namespaced):
// slot 0 `_balances`, slot 1 `_allowances`, slot 2 `_totalSupply`. Writing these slots is how the
// devnet funds wallets in one RPC batch, in any mining mode (like forge's `deal`).
const BALANCES_SLOT = 0n
const ALLOWANCES_SLOT = 1n
const TOTAL_SUPPLY_SLOT = 2n

const word = (value: bigint) => numberToHex(value, { size: 32 })

function mappingSlot(key: `0x${string}`, slot: `0x${string}` | bigint): `0x${string}` {
  const slotWord = typeof slot === 'bigint' ? word(slot) : slot
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [key, slotWord]))
}

/** `anvil_setStorageAt` call that sets `owner`'s token balance (atomic units). */
export function setBalanceCall(token: `0x${string}`, owner: `0x${string}`, amount: bigint): RpcCall {
  return { method: 'anvil_setStorageAt', params: [token, mappingSlot(owner, BALANCES_SLOT), word(amount)] }
}

/** `anvil_setStorageAt` call that sets the ERC-20 allowance of `spender` over `owner`'s tokens. */
export function setAllowanceCall(
  token: `0x${string}`,
  owner: `0x${string}`,
  spender: `0x${string}`,
  amount: bigint,
): RpcCall {
  const slot = mappingSlot(spender, mappingSlot(owner, ALLOWANCES_SLOT))
  return { method: 'anvil_setStorageAt', params: [token, slot, word(amount)] }
}

/** `anvil_setStorageAt` call that sets the token's `totalSupply` (atomic units). */
export function setTotalSupplyCall(token: `0x${string}`, amount: bigint): RpcCall {
  return { method: 'anvil_setStorageAt', params: [token, word(TOTAL_SUPPLY_SLOT), word(amount)] }
}
