// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title ISignatureTransfer
/// @notice The part of Uniswap Permit2's SignatureTransfer that the x402 proxy calls: one-shot
/// signed transfers with unordered nonces and a witness bound into the signed data.
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    /// @notice Transfers with a signed permit whose signed data also covers `witness`, a hash of the
    /// caller's struct typed by `witnessTypeString`; the spender is `msg.sender`.
    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}
