// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title Erc1271Wallet
/// @notice A minimal smart-contract wallet for tests: it accepts (ERC-1271) any signature its owner
/// key made over the hash, and lets the owner make calls from it (approve Permit2, transfer tokens).
contract Erc1271Wallet is IERC1271 {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError error,) = ECDSA.tryRecover(hash, signature);
        return error == ECDSA.RecoverError.NoError && signer == owner ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }

    /// @notice Calls `target` with `data` as this wallet; only the owner.
    function execute(address target, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == owner, "Erc1271Wallet: caller is not the owner");
        (bool success, bytes memory result) = target.call(data);
        if (!success) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
        return result;
    }
}
