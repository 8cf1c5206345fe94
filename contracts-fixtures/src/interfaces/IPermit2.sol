// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ISignatureTransfer} from "./ISignatureTransfer.sol";

/// @title IPermit2
/// @notice The parts of canonical Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3) that Tollgate
/// and its tests use, with its custom errors so clients can decode reverts. Compiled for its ABI only.
interface IPermit2 is ISignatureTransfer {
    error InvalidNonce();
    error SignatureExpired(uint256 signatureDeadline);
    error InvalidSignature();
    error InvalidSignatureLength();
    error InvalidSigner();
    error InvalidContractSignature();
    error InvalidAmount(uint256 maxAmount);
    error LengthMismatch();
    error AllowanceExpired(uint256 deadline);
    error InsufficientAllowance(uint256 amount);

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32);

    /// @notice Bit `nonce & 0xff` of word `nonce >> 8` is set once that unordered nonce is used.
    function nonceBitmap(address owner, uint256 wordPos) external view returns (uint256);

    function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) external;

    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external;

    /// @notice AllowanceTransfer allowance of `spender` over `owner`'s `token`.
    function allowance(address owner, address token, address spender)
        external
        view
        returns (uint160 amount, uint48 expiration, uint48 nonce);

    function approve(address token, address spender, uint160 amount, uint48 expiration) external;
}
