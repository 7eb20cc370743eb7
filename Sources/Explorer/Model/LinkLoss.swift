/// A link that went down under the user (not asked for with `d` or Esc): the device or
/// characteristic screen stays open, says why, and Enter connects again; the
/// subscriptions that were on come back on once the peripheral is ready again. Kept per
/// peripheral until then, or until the user disconnects on purpose.
public struct LinkLoss: Equatable, Sendable {
    /// Why, as the stack said it ("connection timed out"), or why reconnecting failed.
    public var reason: String
    public var at: Timestamp
    /// Notifications or indications that were on when the link went down.
    public var subscriptions: Set<CharacteristicID>

    public init(reason: String, at: Timestamp, subscriptions: Set<CharacteristicID>) {
        self.reason = reason; self.at = at; self.subscriptions = subscriptions
    }

    /// The screens' line, while the link is down or coming back (a replay cannot reconnect).
    public func banner(_ connection: ConnectionState, canReconnect: Bool = true) -> String {
        switch connection {
        case .disconnected, .failed:
            return "● disconnected (\(reason))" + (canReconnect ? " — Enter reconnects" : "")
        case .connecting, .resolvingServices, .readingDescriptors:
            return "● reconnecting: \(connection.label)…"
        case .connected, .disconnecting:
            return ""
        }
    }
}

extension Route {
    /// The peripheral this screen is about, if any.
    public var peripheral: PeripheralID? {
        switch self {
        case let .details(p), let .device(p), let .characteristic(p, _): return p
        case .scan, .regions: return nil
        }
    }
}
