import { type Address, getAddressDecoder, getAddressEncoder } from '@solana/kit'

/** SPL Token program id. */
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address
/** SPL Token-2022 program id. */
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' as Address

/** Byte size of a base SPL mint. */
export const MINT_SIZE = 82
/** Byte size of a base SPL token account. */
export const TOKEN_ACCOUNT_SIZE = 165
// A Token-2022 account created by the ATA program: base + AccountType byte + ImmutableOwner TLV (type 7, length 0).
const TOKEN_2022_ATA_SIZE = 170

/** Decoded fields of an SPL mint (both token programs share the base layout). */
export type MintState = {
  mintAuthority: Address | null
  supply: bigint
  decimals: number
  freezeAuthority: Address | null
}

/** Decoded fields of an SPL token account (base layout). */
export type TokenAccountState = {
  mint: Address
  owner: Address
  amount: bigint
  state: number
  isNative: bigint | null
}

/** Whether `owner` is one of the two SPL token programs. */
export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM
}

function readOption(data: Uint8Array, offset: number): Address | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  return view.getUint32(offset, true) === 1
    ? getAddressDecoder().decode(data.subarray(offset + 4, offset + 36))
    : null
}

function writeOption(data: Uint8Array, offset: number, value: Address | null): void {
  if (value) {
    new DataView(data.buffer, data.byteOffset).setUint32(offset, 1, true)
    data.set(getAddressEncoder().encode(value), offset + 4)
  }
}

/** Serialises a mint into the 82-byte base layout (initialized). */
export function encodeMint(mint: MintState): Uint8Array {
  const data = new Uint8Array(MINT_SIZE)
  writeOption(data, 0, mint.mintAuthority)
  new DataView(data.buffer).setBigUint64(36, mint.supply, true)
  data[44] = mint.decimals
  data[45] = 1
  writeOption(data, 46, mint.freezeAuthority)
  return data
}

/** Parses a mint account's data, or null when it is not an initialized mint. */
export function decodeMint(data: Uint8Array): MintState | null {
  // Token-2022 mints with extensions are padded to 165 bytes and tagged with AccountType 1 at offset 165.
  const isMint =
    data.length === MINT_SIZE || (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === 1)
  if (!isMint || data[45] !== 1) {
    return null
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  return {
    mintAuthority: readOption(data, 0),
    supply: view.getBigUint64(36, true),
    decimals: data[44] ?? 0,
    freezeAuthority: readOption(data, 46),
  }
}

/** Serialises an initialized token account; Token-2022 accounts get the ImmutableOwner extension as ATAs do. */
export function encodeTokenAccount(
  account: { mint: Address; owner: Address; amount: bigint },
  program: Address,
): Uint8Array {
  const data = new Uint8Array(program === TOKEN_2022_PROGRAM ? TOKEN_2022_ATA_SIZE : TOKEN_ACCOUNT_SIZE)
  data.set(getAddressEncoder().encode(account.mint), 0)
  data.set(getAddressEncoder().encode(account.owner), 32)
  new DataView(data.buffer).setBigUint64(64, account.amount, true)
  data[108] = 1
  if (program === TOKEN_2022_PROGRAM) {
    data[TOKEN_ACCOUNT_SIZE] = 2
    data[TOKEN_ACCOUNT_SIZE + 1] = 7
  }
  return data
}

/** Parses a token account's data, or null when it is not an initialized token account. */
export function decodeTokenAccount(data: Uint8Array): TokenAccountState | null {
  const isAccount =
    data.length === TOKEN_ACCOUNT_SIZE || (data.length > TOKEN_ACCOUNT_SIZE && data[TOKEN_ACCOUNT_SIZE] === 2)
  const state = data[108] ?? 0
  if (!isAccount || state === 0) {
    return null
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  return {
    mint: getAddressDecoder().decode(data.subarray(0, 32)),
    owner: getAddressDecoder().decode(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
    state,
    isNative: view.getUint32(109, true) === 1 ? view.getBigUint64(113, true) : null,
  }
}

/** The RPC's `UiTokenAmount`: atomic `amount` string plus the human amount as number and exact string. */
export function toUiTokenAmount(amount: bigint, decimals: number) {
  const scale = 10n ** BigInt(decimals)
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '')
  const uiAmountString = fraction ? `${amount / scale}.${fraction}` : `${amount / scale}`
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}
