// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {FixtureToken} from "./FixtureToken.sol";

/// @title UsdcLike
/// @notice A USDC-like stablecoin: ERC-20, EIP-2612 `permit` and EIP-3009 transfer/receive/cancel
/// authorizations, each in the `(v, r, s)` and the `bytes signature` overload (as FiatTokenV2_2).
/// Signatures go through OpenZeppelin's SignatureChecker, so contract signers (ERC-1271) are accepted.
/// The EIP-712 domain is `{ name: name(), version, chainId, verifyingContract: this }`, computed at
/// call time so the code works at whatever address `anvil_setCode` puts it.
contract UsdcLike is FixtureToken, IERC5267 {
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH = keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");

    string private _version;
    mapping(address => uint256) private _permitNonces;
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor(string memory name_, string memory symbol_, string memory version_, uint8 decimals_, address owner_) {
        _initialize(name_, symbol_, version_, decimals_, owner_);
    }

    /// @notice Configures a copy placed with `anvil_setCode` (no constructor ran); callable once.
    /// `name_` doubles as the EIP-712 domain name, as in FiatToken.
    function initialize(
        string calldata name_,
        string calldata symbol_,
        string calldata version_,
        uint8 decimals_,
        address owner_
    ) external {
        _initialize(name_, symbol_, version_, decimals_, owner_);
    }

    function _initialize(
        string memory name_,
        string memory symbol_,
        string memory version_,
        uint8 decimals_,
        address owner_
    ) private {
        _initializeToken(name_, symbol_, decimals_, owner_);
        _version = version_;
    }

    /// @notice The EIP-712 domain version ("2" for Circle's USDC).
    function version() external view returns (string memory) {
        return _version;
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name())), keccak256(bytes(_version)), block.chainid, address(this)
            )
        );
    }

    /// @inheritdoc IERC5267
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name_,
            string memory version_,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", name(), _version, block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    // ---- EIP-2612 ----

    function nonces(address owner_) external view returns (uint256) {
        return _permitNonces[owner_];
    }

    function permit(address owner_, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        _permit(owner_, spender, value, deadline, abi.encodePacked(r, s, v));
    }

    function permit(address owner_, address spender, uint256 value, uint256 deadline, bytes calldata signature)
        external
    {
        _permit(owner_, spender, value, deadline, signature);
    }

    function _permit(address owner_, address spender, uint256 value, uint256 deadline, bytes memory signature)
        private
    {
        require(deadline >= block.timestamp, "FiatTokenV2: permit is expired");
        bytes32 structHash =
            keccak256(abi.encode(PERMIT_TYPEHASH, owner_, spender, value, _permitNonces[owner_]++, deadline));
        require(_isValidSignature(owner_, structHash, signature), "EIP2612: invalid signature");
        _approve(owner_, spender, value);
    }

    // ---- EIP-3009 ----

    /// @notice Whether `nonce` of `authorizer` was used or canceled.
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
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
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
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    function receiveWithAuthorization(
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
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    function cancelAuthorization(address authorizer, bytes32 nonce, bytes calldata signature) external {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    function _transferWithAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        // Same bounds as FiatTokenV2: validAfter is exclusive, validBefore is exclusive.
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        _requireUnusedAuthorization(from, nonce);
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        require(_isValidSignature(from, structHash, signature), "FiatTokenV2: invalid signature");
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) private {
        _requireUnusedAuthorization(authorizer, nonce);
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        require(_isValidSignature(authorizer, structHash, signature), "FiatTokenV2: invalid signature");
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _requireUnusedAuthorization(address authorizer, bytes32 nonce) private view {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
    }

    /// @dev ECDSA for accounts without code, ERC-1271 `isValidSignature` for contracts.
    function _isValidSignature(address signer, bytes32 structHash, bytes memory signature) private view returns (bool) {
        bytes32 digest = MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash);
        return SignatureChecker.isValidSignatureNow(signer, digest, signature);
    }
}
