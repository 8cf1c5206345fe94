// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {FixtureToken} from "./FixtureToken.sol";

/// @title UsdtLike
/// @notice A plain ERC-20 stablecoin without EIP-3009 or EIP-2612 (like USDT, or USDC on BSC): payable
/// through Permit2 only. Decimals are chosen at deploy (6, or 18 as on BSC).
contract UsdtLike is FixtureToken {
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address owner_) {
        _initializeToken(name_, symbol_, decimals_, owner_);
    }

    /// @notice Configures a copy placed with `anvil_setCode` (no constructor ran); callable once.
    function initialize(string calldata name_, string calldata symbol_, uint8 decimals_, address owner_) external {
        _initializeToken(name_, symbol_, decimals_, owner_);
    }
}
