// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title FixtureToken
/// @notice Base of the devnet stablecoins. Its configuration (name, symbol, decimals, owner) lives in
/// storage and is written once by `_initializeToken`, so the runtime code can be placed at a testnet's
/// real token address with `anvil_setCode` and configured afterwards: the code holds no immutables.
/// The owner mints, blacklists and pauses, which lets tests make a transfer revert on purpose. Revert
/// strings follow Circle's FiatToken so error mapping written against the devnet matches real USDC.
abstract contract FixtureToken is ERC20 {
    string private _tokenName;
    string private _tokenSymbol;
    uint8 private _tokenDecimals;
    bool private _initialized;
    bool private _paused;
    address private _owner;
    mapping(address => bool) private _blacklisted;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event Mint(address indexed minter, address indexed to, uint256 amount);
    event Blacklisted(address indexed account);
    event UnBlacklisted(address indexed account);
    event Pause();
    event Unpause();

    constructor() ERC20("", "") {}

    modifier onlyOwner() {
        require(msg.sender == _owner, "Ownable: caller is not the owner");
        _;
    }

    /// @dev Writes the configuration; reverts when called a second time.
    function _initializeToken(string memory name_, string memory symbol_, uint8 decimals_, address owner_)
        internal
    {
        require(!_initialized, "FixtureToken: already initialized");
        require(owner_ != address(0), "Ownable: new owner is the zero address");
        _initialized = true;
        _tokenName = name_;
        _tokenSymbol = symbol_;
        _tokenDecimals = decimals_;
        _owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
    }

    function name() public view virtual override returns (string memory) {
        return _tokenName;
    }

    function symbol() public view virtual override returns (string memory) {
        return _tokenSymbol;
    }

    function decimals() public view virtual override returns (uint8) {
        return _tokenDecimals;
    }

    function owner() external view returns (address) {
        return _owner;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "Ownable: new owner is the zero address");
        emit OwnershipTransferred(_owner, newOwner);
        _owner = newOwner;
    }

    /// @notice Creates `amount` atomic units for `to`.
    function mint(address to, uint256 amount) external onlyOwner returns (bool) {
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        _mint(to, amount);
        emit Mint(msg.sender, to, amount);
        return true;
    }

    function isBlacklisted(address account) external view returns (bool) {
        return _blacklisted[account];
    }

    /// @notice Makes every transfer from or to `account` revert (Circle's blacklist).
    function blacklist(address account) external onlyOwner {
        _blacklisted[account] = true;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        _blacklisted[account] = false;
        emit UnBlacklisted(account);
    }

    function paused() external view returns (bool) {
        return _paused;
    }

    /// @notice Makes every transfer revert until `unpause`.
    function pause() external onlyOwner {
        _paused = true;
        emit Pause();
    }

    function unpause() external onlyOwner {
        _paused = false;
        emit Unpause();
    }

    function _update(address from, address to, uint256 value) internal virtual override {
        require(!_paused, "Pausable: paused");
        require(!_blacklisted[from] && !_blacklisted[to], "Blacklistable: account is blacklisted");
        super._update(from, to, value);
    }
}
