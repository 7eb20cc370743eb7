/// Several links at once: the app keeps every link the user opened (`Links`), remembers
/// where each one's screen was left, and goes from one to another with `1`–`9` (the
/// numbers the top bar shows) or Enter on it in the scan list, each screen as it was.
enum LinkReducer {
    /// After each of the app's actions: the place of the link on screen is remembered, and
    /// links whose peripheral is gone from the state leave the list.
    static func follow(_ s: inout AppState) {
        guard !s.links.isEmpty else { return }
        remember(&s)
        if s.links.order.contains(where: { s.peripherals[$0] == nil }) {
            let peripherals = s.peripherals
            s.links.keep { peripherals[$0] != nil }
        }
    }

    /// The place of the link on screen, as it is now.
    static func remember(_ s: inout AppState) {
        guard let id = s.route.linkScreen, s.links.contains(id) else { return }
        let place = Place(route: s.route, device: s.device, historyOffset: s.historyOffset, selectedDescriptor: s.selectedDescriptor)
        if s.links.places[id] != place { s.links.places[id] = place }
    }

    /// `1`–`9`: the screen of that link, as it was left.
    static func select(_ s: inout AppState, _ n: Int) {
        guard let id = s.links.numbered(n) else {
            s.alert = Alert(.info, s.links.isEmpty ? "No links yet: Enter on a device connects"
                            : "No link \(n): the top bar numbers the \(s.links.order.count) there are", at: s.now)
            return
        }
        open(&s, id)
    }

    /// The screen of a link: where it was left, or the top of its tree; the scan list, on
    /// it, while its services are not resolved yet.
    static func open(_ s: inout AppState, _ id: PeripheralID) {
        guard let p = s.peripherals[id] else { return }
        remember(&s)
        guard p.services != nil else {
            s.route = .scan
            s.scan.cursor = id
            s.alert = Alert(.info, "\(p.displayName) is \(p.connection.label)…", at: s.now)
            return
        }
        if let place = s.links.places[id] {
            s.route = place.route
            s.device = place.device
            s.historyOffset = place.historyOffset
            s.selectedDescriptor = place.selectedDescriptor
            ConnectionReducer.keepPlace(&s, p)
        } else {
            s.route = .device(id)
            s.device = DeviceScreenState(cursor: DeviceTree.rows(p, collapsed: []).first?.id)
            s.historyOffset = 0
            s.selectedDescriptor = nil
        }
    }

    /// The screen shown is another link's: a link that becomes ready does not take it over.
    static func showsAnotherLink(_ s: AppState, than id: PeripheralID) -> Bool {
        guard let shown = s.route.linkScreen, shown != id else { return false }
        return s.links.contains(shown)
    }

    /// `d` on a link that is down and kept (its screen, or its row in the scan list): the
    /// place is given up and the link leaves the list.
    static func giveUp(_ s: inout AppState, _ id: PeripheralID) {
        s.linkLoss[id] = nil
        s.links.remove(id)
        if Reducer.routeShows(s.route, id) {
            s.route = .scan
            s.scan.cursor = id
            s.input = nil
        }
    }
}
