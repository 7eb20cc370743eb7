import Explorer
import TUI

/// Events from an untrusted source (a recording, a lying org.bluez) through the store's
/// reducer and onto every screen they can reach, and through the command printer: the
/// text that would reach the terminal, for the caller to check. An RSSI that overflows a
/// screen's arithmetic traps here, as it trapped the app on its first frame.
///
/// Under libFuzzer (`-DFUZZING`) one screen per input is drawn, the one `pick` (a byte of
/// the input) chooses, so that a target runs at well over 1,000 inputs a second; the corpus
/// replay (`swift test`, the normal build) draws every screen of every kept input.
enum FuzzScreens {
    static func texts(_ events: [BackendEvent], pick: UInt8) -> [String] {
        var s = AppState(now: Timestamp(1_700_000_000))
        var out: [String] = []
        for (i, e) in events.prefix(400).enumerated() {
            _ = Reducer.reduce(&s, .backend(e, at: Timestamp(1_700_000_000 + Double(i) * 0.1)))
        }
        _ = Reducer.reduce(&s, .tick(Timestamp(1_700_000_100)))
        let first = s.peripherals.keys.sorted { $0.rawValue < $1.rawValue }.first
        var routes: [Route] = [.scan, .regions]
        if let id = first {
            routes += [.details(id), .device(id)]
            if let c = s.peripherals[id]?.services?.first?.characteristics.first { routes.append(.characteristic(id, c.id)) }
        }
        #if FUZZING
        routes = [routes[Int(pick) % routes.count]]
        #endif
        for route in routes {
            s.route = route
            out += Router.render(s, width: 100, height: 30).lines()
        }
        let devices = s.peripherals.values.sorted { $0.id.rawValue < $1.id.rawValue }
        for json in [false, true] {
            for line in CommandPrinter(json: json).lines(.devices(devices), now: s.now) {
                if json, (try? JSONValue.parse(line.text)) == nil { fatalError("scan --json printed a line that is not JSON: \(line.text.debugDescription)") }
                out.append(line.text)
            }
        }
        return out
    }
}
