import { type AbiFunction, encodeAbiParameters, type Hex, toFunctionSelector } from 'viem'

/** Encodes the calldata of one ABI function from its arguments (typed as viem types them). */
export type CallEncoder<F extends AbiFunction> = (
  args: Parameters<typeof encodeAbiParameters<F['inputs']>>[1],
) => Hex

const UINT256_LIMIT = 1n << 256n

/**
 * A calldata encoder for one function whose selector is hashed once, here, instead of on every
 * call as viem's `encodeFunctionData` does. Functions whose inputs are all one-word types
 * (`address`, `bool`, `uint*`, `bytes32`) are encoded word by word, as the verify hot path needs
 * them; others go through viem's `encodeAbiParameters`.
 */
export function createCallEncoder<const F extends AbiFunction>(abiItem: F): CallEncoder<F> {
  const selector = toFunctionSelector(abiItem)
  const writers = abiItem.inputs.map((input) => getWordWriter(input.type))
  if (writers.every((writer) => writer !== undefined)) {
    return (args) => {
      let data: string = selector
      const values = args as readonly unknown[]
      for (let i = 0; i < writers.length; i++) {
        data += (writers[i] as WordWriter)(values[i], abiItem.inputs[i]?.name ?? String(i))
      }
      return data as Hex
    }
  }
  return (args) =>
    `${selector}${encodeAbiParameters(abiItem.inputs, args as readonly unknown[]).slice(2)}` as Hex
}

type WordWriter = (value: unknown, name: string) => string

function getWordWriter(type: string): WordWriter | undefined {
  if (type === 'address') {
    return (value, name) => {
      if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
        throw new TypeError(`${name} is not an address`)
      }
      return `000000000000000000000000${value.slice(2).toLowerCase()}`
    }
  }
  if (type === 'bytes32') {
    return (value, name) => {
      if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) {
        throw new TypeError(`${name} is not 32 bytes`)
      }
      return value.slice(2).toLowerCase()
    }
  }
  if (type === 'bool') {
    return (value) => (value ? '1' : '0').padStart(64, '0')
  }
  const uint = /^uint(\d*)$/.exec(type)
  if (uint) {
    const limit = uint[1] ? 1n << BigInt(uint[1]) : UINT256_LIMIT
    return (value, name) => {
      const n = typeof value === 'number' ? BigInt(value) : value
      if (typeof n !== 'bigint' || n < 0n || n >= limit) {
        throw new RangeError(`${name} is out of range for ${type}`)
      }
      return n.toString(16).padStart(64, '0')
    }
  }
  return undefined
}
