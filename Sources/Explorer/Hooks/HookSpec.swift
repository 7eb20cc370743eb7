/// What to do when a characteristic notifies: run a command, or send an HTTP request.
/// Used by `bleexplr watch` and by `a` on a characteristic screen.
public enum HookTarget: Equatable, Sendable {
    case exec(command: String)
    case post(HTTPHook)

    /// One line for the screen and logs. Secrets never appear: `${NAME}` stays a name,
    /// and literal values of secret-looking headers are masked.
    public var summary: String {
        switch self {
        case let .exec(command): return "exec " + command
        case let .post(h): return "\(h.method) \(h.url)"
        }
    }

    /// What to type after `a` to get this target again (the app's prompt starts with it).
    public var typed: String {
        switch self {
        case let .exec(command): return "exec " + command
        case let .post(h): return "post " + h.url
        }
    }

    /// `exec CMD` or `post URL`, as typed after `a` in the app.
    public static func parse(_ text: String) -> Result<HookTarget, HookSpecError> {
        let t = text.drop { $0 == " " }
        if t.hasPrefix("exec ") {
            let cmd = t.dropFirst(5).trimmingSpaces()
            return cmd.isEmpty ? .failure(.init("exec needs a command")) : .success(.exec(command: cmd))
        }
        if t.hasPrefix("post ") {
            return HTTPHook.make(url: t.dropFirst(5).trimmingSpaces(), headers: [], body: nil).map { .post($0) }
        }
        return .failure(.init("type 'exec COMMAND' or 'post URL'"))
    }
}

public struct HookSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public struct HTTPHeader: Equatable, Sendable {
    public let name: String
    /// May hold `${NAME}`, resolved from the secrets file or the environment at send time.
    public let value: String

    /// `Name: value`, as given to --header.
    public static func parse(_ s: String) -> Result<HTTPHeader, HookSpecError> {
        guard let colon = s.firstIndex(of: ":") else { return .failure(.init("--header takes 'Name: value', not '\(TerminalSafe.text(s))'")) }
        let name = String(s[..<colon]).trimmingSpaces()
        let value = String(s[s.index(after: colon)...]).trimmingSpaces()
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != ":" }) else {
            return .failure(.init("'\(TerminalSafe.text(name))' is not a header name"))
        }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return .failure(.init("the value of header \(name) has a control character"))
        }
        return .success(HTTPHeader(name: name, value: value))
    }

    /// Authorization, tokens, keys, cookies, passwords: never shown.
    public var isSecret: Bool {
        let n = name.lowercased()
        return ["authorization", "token", "key", "secret", "password", "cookie", "auth"].contains { n.contains($0) }
    }

    /// What logs and the screen show.
    public var shown: String {
        "\(name): " + (isSecret && !value.contains("${") ? "***" : value)
    }
}

public struct HTTPHook: Equatable, Sendable {
    public let method: String
    public let url: String
    public let headers: [HTTPHeader]
    /// A template (see `HookTemplate`); nil sends the default JSON object.
    public let body: String?

    /// The `${NAME}` secrets its URL, headers and body use, in that order.
    public var secretNames: [String] {
        HookTemplate.secretNames(url) + headers.flatMap { HookTemplate.secretNames($0.value) }
            + HookTemplate.secretNames(body ?? "")
    }

    public static func make(url: String, headers: [HTTPHeader], body: String?, method: String = "POST")
        -> Result<HTTPHook, HookSpecError> {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.count > 8,
              !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            return .failure(.init("--post takes an http:// or https:// URL, not '\(TerminalSafe.text(url))'"))
        }
        if let body, let bad = HookTemplate.unknownPlaceholder(body) {
            return .failure(.init("the body has an unknown placeholder {{\(bad)}}; known: \(HookTemplate.names.joined(separator: ", "))"))
        }
        return .success(HTTPHook(method: method, url: url, headers: headers, body: body))
    }

    /// The body is JSON unless a Content-Type header says otherwise.
    public var isJSON: Bool {
        guard let ct = headers.first(where: { $0.name.lowercased() == "content-type" }) else { return true }
        return ct.value.lowercased().contains("json")
    }
}

/// One notification that fired a hook. `seq` numbers them per queue, so a receiver
/// can tell a retry from a new press.
public struct FiredEvent: Equatable, Sendable {
    public var seq: Int
    public var time: String
    public var address: String
    public var uuid: String
    public var name: String?
    public var hex: String
    public var text: String
    public var decoded: String?

    public init(seq: Int = 0, at: Timestamp, address: String, uuid: BLEUUID, bytes: Bytes) {
        self.seq = seq
        time = at.iso8601
        self.address = address
        self.uuid = uuid.canonical
        name = AssignedNumbers.characteristicName(uuid)
        hex = Explorer.hex(bytes, separator: "")
        text = String(decoding: bytes, as: UTF8.self)
        decoded = ValueDecoder.decode(uuid, bytes)
    }

    public init(seq: Int, time: String, address: String, uuid: String, name: String?, hex: String, text: String, decoded: String?) {
        self.seq = seq; self.time = time; self.address = address; self.uuid = uuid
        self.name = name; self.hex = hex; self.text = text; self.decoded = decoded
    }

    public var json: String {
        var j = JSONLine()
        j.int("seq", seq); j.string("time", time); j.string("address", address); j.string("uuid", uuid)
        j.string("name", name); j.string("hex", hex); j.string("text", text); j.string("decoded", decoded)
        return j.finish()
    }

    public init?(json v: JSONValue) {
        guard let seq = v["seq"]?.int, let time = v["time"]?.string, let address = v["address"]?.string,
              let uuid = v["uuid"]?.string, let hex = v["hex"]?.string else { return nil }
        self.init(seq: seq, time: time, address: address, uuid: uuid, name: v["name"]?.string, hex: hex,
                  text: v["text"]?.string ?? "", decoded: v["decoded"]?.string)
    }

    /// Placeholder values, by name.
    public func value(_ name: String) -> String? {
        switch name {
        case "seq": return String(seq)
        case "time": return time
        case "address": return address
        case "uuid": return uuid
        case "name": return self.name ?? ""
        case "hex": return hex
        case "text": return text
        case "decoded": return decoded ?? ""
        default: return nil
        }
    }

    /// The environment a command runs with.
    public var environment: [(String, String)] {
        HookTemplate.names.map { ("BLE_" + $0.uppercased(), value($0) ?? "") }
    }
}

/// Templates: `{{hex}}`, `{{text}}`, `{{address}}`, `{{uuid}}`, `{{time}}`, `{{seq}}`,
/// `{{name}}`, `{{decoded}}` take the event's values; `${NAME}` takes a secret (from the
/// secrets file or the environment). Double braces, so JSON bodies need no escaping.
public enum HookTemplate {
    public static let names = ["seq", "time", "address", "uuid", "name", "hex", "text", "decoded"]

    public static func unknownPlaceholder(_ template: String) -> String? {
        placeholders(template).first { !names.contains($0) }
    }

    static func placeholders(_ template: String) -> [String] {
        var out: [String] = []
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{") {
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else { break }
            out.append(String(rest[open.upperBound..<close.lowerBound]).trimmingSpaces())
            rest = rest[close.upperBound...]
        }
        return out
    }

    /// Fills `{{name}}` placeholders; in a JSON body values are escaped for a JSON string
    /// (quotes, control characters), and non-ASCII text goes through untouched.
    public static func render(_ template: String, _ e: FiredEvent, json: Bool) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            out += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingSpaces()
            let v = e.value(name) ?? ""
            if json { JSONLine.escape(v, into: &out) } else { out += v }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// Replaces `${NAME}` with its secret. Nil names the first one that has no value.
    public static func resolveSecrets(_ s: String, _ lookup: (String) -> String?) -> Result<String, HookSpecError> {
        var out = ""
        var rest = Substring(s)
        while let open = rest.firstRange(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            out += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close])
            guard let v = lookup(name) else { return .failure(.init("no value for ${\(name)} (set it in the environment or the secrets file)")) }
            out += v
            rest = rest[rest.index(after: close)...]
        }
        return .success(out + rest)
    }

    /// Names of the `${NAME}` references in `s`.
    public static func secretNames(_ s: String) -> [String] {
        var out: [String] = []
        var rest = Substring(s)
        while let open = rest.firstRange(of: "${"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            out.append(String(rest[open.upperBound..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }
}

