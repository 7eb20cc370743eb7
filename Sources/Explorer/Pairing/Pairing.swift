/// The pairing agent's input and output capability (`--agent`): what BlueZ may ask of us.
public enum AgentCapability: String, CaseIterable, Equatable, Sendable {
    case keyboardDisplay = "keyboard-display", displayYesNo = "display-yes-no", displayOnly = "display-only"
    case keyboardOnly = "keyboard-only", noInputNoOutput = "no-input-no-output"

    /// As AgentManager1.RegisterAgent spells it.
    public var bluezName: String {
        switch self {
        case .keyboardDisplay: return "KeyboardDisplay"
        case .displayYesNo: return "DisplayYesNo"
        case .displayOnly: return "DisplayOnly"
        case .keyboardOnly: return "KeyboardOnly"
        case .noInputNoOutput: return "NoInputNoOutput"
        }
    }
}

/// `--agent`, `--passkey`, `--confirm`: whether an agent is registered, and the answers a
/// command gives without a terminal.
public struct AgentSettings: Equatable, Sendable {
    /// nil: `--agent off`, no agent registered.
    public var capability: AgentCapability? = .keyboardDisplay
    /// `--passkey N`: the answer to RequestPasskey (and, as digits, RequestPinCode).
    public var passkey: UInt32?
    /// `--confirm yes|no`: the answer to RequestConfirmation and the authorizations.
    public var confirm: Bool?
    /// A command may ask on its terminal (stdin is one); without, it rejects what the
    /// flags do not answer.
    public var terminal = false
    public init(capability: AgentCapability? = .keyboardDisplay, passkey: UInt32? = nil, confirm: Bool? = nil) {
        self.capability = capability; self.passkey = passkey; self.confirm = confirm
    }

    public static let flags: Set<String> = ["--agent", "--passkey", "--confirm"]

    /// Applies one of `flags` with its value; the error is one line naming the flag.
    public mutating func apply(_ flag: String, _ value: String) -> Result<Void, UsageError> {
        switch flag {
        case "--agent":
            if value == "off" { capability = nil; return .success(()) }
            guard let c = AgentCapability(rawValue: value) else {
                return .failure(UsageError("--agent takes " + AgentCapability.allCases.map(\.rawValue).joined(separator: ", ")
                                           + " or off, not '\(TerminalSafe.text(value))'"))
            }
            capability = c
        case "--passkey":
            guard value.count <= 6, !value.isEmpty, value.allSatisfy(\.isASCIIDigit), let n = UInt32(value) else {
                return .failure(UsageError("--passkey takes up to six digits (000000...999999), not '\(TerminalSafe.text(value))'"))
            }
            passkey = n
        case "--confirm":
            switch value {
            case "yes": confirm = true
            case "no": confirm = false
            default: return .failure(UsageError("--confirm takes yes or no, not '\(TerminalSafe.text(value))'"))
            }
        default:
            return .failure(UsageError("unknown agent option \(TerminalSafe.text(flag))"))
        }
        return .success(())
    }
}

/// A one-line complaint about the command line.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// What BlueZ's agent API asks (org.bluez.Agent1), one case per method.
public enum AgentRequestKind: Equatable, Sendable {
    /// RequestPasskey: six digits to type (what the other device shows).
    case passkey
    /// RequestPinCode: a legacy PIN (1 to 16 characters).
    case pinCode
    /// DisplayPasskey: show this passkey; `entered` digits typed on the other side so far.
    case displayPasskey(UInt32, entered: Int)
    /// DisplayPinCode: show this PIN.
    case displayPinCode(String)
    /// RequestConfirmation: does the other device show this number?
    case confirmation(UInt32)
    /// RequestAuthorization: may this device pair (just works)?
    case authorization
    /// AuthorizeService: may this device use this service (UUID)?
    case service(String)

    /// Display requests are answered at once; the prompt stays until pairing ends.
    public var isDisplay: Bool {
        switch self {
        case .displayPasskey, .displayPinCode: return true
        case .passkey, .pinCode, .confirmation, .authorization, .service: return false
        }
    }

    /// For recordings and messages: what was asked, never the secret itself.
    public var code: String {
        switch self {
        case .passkey: return "passkey"
        case .pinCode: return "pin-code"
        case .displayPasskey: return "display-passkey"
        case .displayPinCode: return "display-pin-code"
        case .confirmation: return "confirmation"
        case .authorization: return "authorization"
        case .service: return "service"
        }
    }
}

/// One call of BlueZ's to our agent, waiting for the reducer's answer.
public struct AgentRequest: Equatable, Sendable {
    /// The backend's number for the call, to answer it.
    public var id: Int
    public var device: PeripheralID
    public var kind: AgentRequestKind
    public init(id: Int, device: PeripheralID, kind: AgentRequestKind) { self.id = id; self.device = device; self.kind = kind }
}

/// The reducer's answer to an agent request.
public enum AgentAnswer: Equatable, Sendable {
    case passkey(UInt32)
    case pinCode(String)
    /// Confirmed, authorized, or (display requests) shown.
    case accept
    /// org.bluez.Error.Rejected, with why.
    case reject(String)

    /// For recordings: that a passkey was entered, never which.
    public var code: String {
        switch self {
        case .passkey: return "passkey-entered"
        case .pinCode: return "pin-code-entered"
        case .accept: return "accepted"
        case .reject: return "rejected"
        }
    }
}

/// The pending request as the screen shows it, with what the user typed so far.
public struct AgentPrompt: Equatable, Sendable {
    public var request: AgentRequest
    public var typed = ""
    public init(request: AgentRequest) { self.request = request }
}

/// Device1's pairing facts: Paired, Bonded, Trusted, Blocked, AddressType.
public struct Bond: Equatable, Sendable {
    public var paired = false
    public var bonded = false
    public var trusted = false
    public var blocked = false
    /// "public" or "random"; nil when the backend does not say.
    public var addressType: String?
    public init(paired: Bool = false, bonded: Bool = false, trusted: Bool = false, blocked: Bool = false, addressType: String? = nil) {
        self.paired = paired; self.bonded = bonded; self.trusted = trusted; self.blocked = blocked; self.addressType = addressType
    }

    /// "paired·bonded·trusted" for the list and the device screen; "" when none holds.
    /// Paired and bonded both: a pairing without bonding keeps no keys, and the next
    /// connection pairs again.
    public var summary: String {
        guard paired || bonded || trusted || blocked else { return "" }   // most devices: asked per row, per frame
        return [(paired, "paired"), (bonded, "bonded"), (trusted, "trusted"), (blocked, "blocked")]
            .filter(\.0).map(\.1).joined(separator: "·")
    }

    /// The kind of `address`, when the backend said public or random.
    public func addressKind(_ address: String) -> AddressKind? {
        AddressKind(type: addressType, address: address)
    }
}

/// Public, or random and then which kind, from the address's two top bits (Core Vol 6,
/// Part B, 1.3): 11 static (fixed for a power cycle at least), 01 resolvable private (changes;
/// a bonded peer resolves it with the IRK), 00 non-resolvable private; 10 is reserved.
public enum AddressKind: String, Equatable, Sendable {
    case `public`, `static`, resolvable, nonResolvable = "non-resolvable", random

    public init?(type: String?, address: String) {
        switch type {
        case "public": self = .public
        case "random":
            guard let top = UInt8(address.prefix(2), radix: 16) else { self = .random; return }
            switch top >> 6 {
            case 0b11: self = .static
            case 0b01: self = .resolvable
            case 0b00: self = .nonResolvable
            default: self = .random
            }
        default: return nil
        }
    }

    /// "public", "random static", "random resolvable", ...: the details and the device screen.
    public var text: String { self == .public || self == .random ? rawValue : "random " + rawValue }

    /// Six columns at most, for the scan list: "public", "static", "RPA", "NRPA", "random".
    public var short: String {
        switch self {
        case .public, .static, .random: return rawValue
        case .resolvable: return "RPA"
        case .nonResolvable: return "NRPA"
        }
    }
}

extension String {
    /// 246810 as "246 810", zero-padded: a passkey as people read it.
    public init(format6 n: UInt32) {
        let d = String(n % 1_000_000)
        let padded = String(repeating: "0", count: 6 - d.count) + d
        self = padded.prefix(3) + " " + padded.suffix(3)
    }
}
