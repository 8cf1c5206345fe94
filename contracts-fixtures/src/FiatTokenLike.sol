// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title FiatTokenLike
/// @notice A token with the storage layout of Circle's FiatToken v2.2, for fork tests of balance-slot
/// probing: balances live at slot 9 in `balanceAndBlacklistStates`, one word per holder whose top bit
/// is the blacklist flag and whose low 255 bits are the balance. Like FiatToken it has EIP-3009
/// `transferWithAuthorization` (both overloads), `name()` and `version()` but no ERC-5267
/// `eip712Domain()`. The code holds no immutables: place it with `anvil_setCode`, then `initialize`.
contract FiatTokenLike {
    // Slots 0..8 in FiatToken's order (Ownable, Pausable, Blacklistable, FiatTokenV1 fields).
    address private _owner;
    address private _pauser;
    bool private _paused;
    address private _blacklister;
    mapping(address => bool) private _deprecatedBlacklisted;
    string private _name;
    string private _symbol;
    uint8 private _decimals;
    string private _currency;
    address private _masterMinter;
    bool private _initialized;
    // Slot 9: balance (low 255 bits) and blacklist flag (top bit) of each holder.
    mapping(address => uint256) private _balanceAndBlacklistStates;
    mapping(address => mapping(address => uint256)) private _allowed;
    uint256 private _totalSupply;
    string private _version;
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    uint256 private constant BLACKLIST_FLAG = 1 << 255;
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    /// @notice Configures a placed copy; callable once. `name_` is also the EIP-712 domain name.
    function initialize(
        string calldata name_,
        string calldata symbol_,
        string calldata version_,
        uint8 decimals_,
        address owner_
    ) external {
        require(!_initialized, "FiatToken: contract is already initialized");
        _initialized = true;
        _name = name_;
        _symbol = symbol_;
        _version = version_;
        _decimals = decimals_;
        _currency = "USD";
        _owner = owner_;
        _masterMinter = owner_;
        _blacklister = owner_;
    }

    modifier onlyOwner() {
        require(msg.sender == _owner, "Ownable: caller is not the owner");
        _;
    }

    function name() external view returns (string memory) {
        return _name;
    }

    function symbol() external view returns (string memory) {
        return _symbol;
    }

    function decimals() external view returns (uint8) {
        return _decimals;
    }

    function version() external view returns (string memory) {
        return _version;
    }

    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address account) public view returns (uint256) {
        return _balanceAndBlacklistStates[account] & ~BLACKLIST_FLAG;
    }

    function isBlacklisted(address account) public view returns (bool) {
        return _balanceAndBlacklistStates[account] & BLACKLIST_FLAG != 0;
    }

    function allowance(address owner_, address spender) external view returns (uint256) {
        return _allowed[owner_][spender];
    }

    function mint(address to, uint256 amount) external onlyOwner returns (bool) {
        require(!isBlacklisted(to), "Blacklistable: account is blacklisted");
        _totalSupply += amount;
        _balanceAndBlacklistStates[to] += amount;
        emit Transfer(address(0), to, amount);
        return true;
    }

    function blacklist(address account) external onlyOwner {
        _balanceAndBlacklistStates[account] |= BLACKLIST_FLAG;
    }

    function unBlacklist(address account) external onlyOwner {
        _balanceAndBlacklistStates[account] &= ~BLACKLIST_FLAG;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        require(!isBlacklisted(msg.sender) && !isBlacklisted(spender), "Blacklistable: account is blacklisted");
        _allowed[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        require(!isBlacklisted(msg.sender), "Blacklistable: account is blacklisted");
        require(value <= _allowed[from][msg.sender], "ERC20: transfer amount exceeds allowance");
        _allowed[from][msg.sender] -= value;
        _transfer(from, to, value);
        return true;
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                EIP712_DOMAIN_TYPEHASH, keccak256(bytes(_name)), keccak256(bytes(_version)), block.chainid, address(this)
            )
        );
    }

    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        _transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, signature);
    }

    function _transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_authorizationStates[from][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 structHash =
            keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce));
        bytes32 digest = MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash);
        require(SignatureChecker.isValidSignatureNow(from, digest, signature), "FiatTokenV2: invalid signature");
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(!isBlacklisted(from) && !isBlacklisted(to), "Blacklistable: account is blacklisted");
        require(to != address(0), "ERC20: transfer to the zero address");
        require(value <= balanceOf(from), "ERC20: transfer amount exceeds balance");
        _balanceAndBlacklistStates[from] -= value;
        _balanceAndBlacklistStates[to] += value;
        emit Transfer(from, to, value);
    }
}
