/// Where a link's screen was when the user left it, so that coming back (`1`–`9`, Enter on
/// it in the scan list, a reconnect) finds it as it was: the device tree or one of its
/// characteristics, the tree's cursor and folds, the history's scroll, the descriptor chosen.
public struct Place: Equatable, Sendable {
    public var route: Route
    public var device: DeviceScreenState
    public var historyOffset: Int
    public var selectedDescriptor: AttributeID?

    public init(route: Route, device: DeviceScreenState, historyOffset: Int = 0, selectedDescriptor: AttributeID? = nil) {
        self.route = route; self.device = device; self.historyOffset = historyOffset; self.selectedDescriptor = selectedDescriptor
    }
}

/// The links the app holds (several at once, as nRF Connect's tabs): every device the user
/// connected to, or that came up connected, in the order they did, until the user
/// disconnects it or gives its screen up. A link that dropped stays listed, its screen kept
/// (`LinkLoss`), until it is back or given up.
public struct Links: Equatable, Sendable {
    public private(set) var order: [PeripheralID] = []
    public var places: [PeripheralID: Place] = [:]
    public init() {}

    public var isEmpty: Bool { order.isEmpty }
    public func contains(_ id: PeripheralID) -> Bool { order.contains(id) }
    /// `1`–`9`: the link with that number (1 is the first).
    public func numbered(_ n: Int) -> PeripheralID? { n >= 1 && n <= order.count ? order[n - 1] : nil }
    public func number(of id: PeripheralID) -> Int? { order.firstIndex(of: id).map { $0 + 1 } }

    mutating func add(_ id: PeripheralID) { if !order.contains(id) { order.append(id) } }
    mutating func remove(_ id: PeripheralID) {
        order.removeAll { $0 == id }
        places[id] = nil
    }
    mutating func keep(where alive: (PeripheralID) -> Bool) {
        for id in order where !alive(id) { remove(id) }
    }
}

extension Route {
    /// The peripheral whose device tree or characteristic this screen shows (a link's own screens).
    public var linkScreen: PeripheralID? {
        switch self {
        case let .device(p), let .characteristic(p, _): return p
        case .scan, .details, .regions: return nil
        }
    }
}
