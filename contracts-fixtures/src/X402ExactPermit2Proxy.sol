// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ISignatureTransfer} from "./interfaces/ISignatureTransfer.sol";

/// @title X402ExactPermit2Proxy
/// @notice Settles x402 `exact` payments through Permit2: the payer signs a PermitWitnessTransferFrom
/// with this contract as spender and a witness `{to, validAfter}`, so whoever submits can only move
/// exactly the signed amount to exactly the signed recipient, not before `validAfter`.
/// Written for Tollgate with the public ABI of x402's proxy. Permit2 is a constant, not a constructor
/// argument, because the devnet places this runtime code with `anvil_setCode` (no constructor runs).
contract X402ExactPermit2Proxy is ReentrancyGuard {
    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// @notice Appended by Permit2 to "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,".
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";

    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    struct Witness {
        address to;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    event Settled();
    event SettledWithPermit();

    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();

    /// @notice Moves `permit.permitted.amount` of `permit.permitted.token` from `owner` to `witness.to`.
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        _settle(permit, owner, witness, signature);
        emit Settled();
    }

    /// @notice Like `settle`, after first trying an EIP-2612 `permit(owner, PERMIT2, value, ...)` so a
    /// payer without a Permit2 approval can pay gaslessly. The permit call is try/caught: if someone
    /// already used that permit (front-running), the approval exists and settlement still succeeds.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) {
            revert Permit2612AmountMismatch();
        }
        try IERC20Permit(permit.permitted.token).permit(
            owner, address(PERMIT2), permit2612.value, permit2612.deadline, permit2612.v, permit2612.r, permit2612.s
        ) {} catch {}
        _settle(permit, owner, witness, signature);
        emit SettledWithPermit();
    }

    function _settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (permit.permitted.amount == 0) {
            revert InvalidAmount();
        }
        if (owner == address(0)) {
            revert InvalidOwner();
        }
        if (witness.to == address(0)) {
            revert InvalidDestination();
        }
        if (block.timestamp < witness.validAfter) {
            revert PaymentTooEarly();
        }
        if (address(PERMIT2).code.length == 0) {
            revert InvalidPermit2Address();
        }
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: permit.permitted.amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
