const authorizationInputs = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const

/** EIP-3009 `transferWithAuthorization` (both overloads) and `authorizationState`. */
export const eip3009Abi = [
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [
      ...authorizationInputs,
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'transferWithAuthorization',
    stateMutability: 'nonpayable',
    inputs: [...authorizationInputs, { name: 'signature', type: 'bytes' }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ type: 'bool' }],
  },
] as const

const permitTransferFrom = {
  name: 'permit',
  type: 'tuple',
  components: [
    {
      name: 'permitted',
      type: 'tuple',
      components: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
    },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

const witness = {
  name: 'witness',
  type: 'tuple',
  components: [
    { name: 'to', type: 'address' },
    { name: 'validAfter', type: 'uint256' },
  ],
} as const

/** x402 exact Permit2 proxy: `settle`, `settleWithPermit`, `PERMIT2` and its custom errors. */
export const x402ExactPermit2ProxyAbi = [
  {
    type: 'function',
    name: 'settle',
    stateMutability: 'nonpayable',
    inputs: [
      permitTransferFrom,
      { name: 'owner', type: 'address' },
      witness,
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'settleWithPermit',
    stateMutability: 'nonpayable',
    inputs: [
      {
        name: 'permit2612',
        type: 'tuple',
        components: [
          { name: 'value', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
          { name: 'r', type: 'bytes32' },
          { name: 's', type: 'bytes32' },
          { name: 'v', type: 'uint8' },
        ],
      },
      permitTransferFrom,
      { name: 'owner', type: 'address' },
      witness,
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'PERMIT2',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'address' }],
  },
  { type: 'error', name: 'InvalidAmount', inputs: [] },
  { type: 'error', name: 'InvalidDestination', inputs: [] },
  { type: 'error', name: 'InvalidOwner', inputs: [] },
  { type: 'error', name: 'InvalidPermit2Address', inputs: [] },
  { type: 'error', name: 'PaymentTooEarly', inputs: [] },
  { type: 'error', name: 'Permit2612AmountMismatch', inputs: [] },
] as const

/** Permit2 SignatureTransfer: the unordered-nonce bitmap and its custom errors. */
export const permit2Abi = [
  {
    type: 'function',
    name: 'nonceBitmap',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'wordPos', type: 'uint256' },
    ],
    outputs: [{ type: 'uint256' }],
  },
  { type: 'error', name: 'InvalidNonce', inputs: [] },
  {
    type: 'error',
    name: 'SignatureExpired',
    inputs: [{ name: 'signatureDeadline', type: 'uint256' }],
  },
  { type: 'error', name: 'InvalidSignature', inputs: [] },
  { type: 'error', name: 'InvalidSigner', inputs: [] },
  { type: 'error', name: 'InvalidSignatureLength', inputs: [] },
  { type: 'error', name: 'InvalidContractSignature', inputs: [] },
  {
    type: 'error',
    name: 'InsufficientAllowance',
    inputs: [{ name: 'amount', type: 'uint256' }],
  },
] as const

/** ERC-1271 `isValidSignature(bytes32,bytes)`. */
export const erc1271Abi = [
  {
    type: 'function',
    name: 'isValidSignature',
    stateMutability: 'view',
    inputs: [
      { name: 'hash', type: 'bytes32' },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [{ type: 'bytes4' }],
  },
] as const
