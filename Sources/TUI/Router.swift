import Explorer

/// State to screen: picks the screen for the route and draws the frame around it.
public enum Router {
    public static let minWidth = 60
    public static let minHeight = 16

    public static func render(_ s: AppState, width: Int, height: Int) -> CellGrid {
        var g = CellGrid(width: width, height: height)
        guard width >= minWidth, height >= minHeight else {
            let lines = ["Terminal too small", "\(width)x\(height), need \(minWidth)x\(minHeight)", "q quits"]
            for (i, l) in lines.enumerated() {
                g.put(l, x: max(0, (width - CellGrid.columns(of: l)) / 2), y: height / 2 - 1 + i,
                      style: i == 0 ? .title : .plain)
            }
            return g
        }
        Chrome.drawTop(s, into: &g)
        let hints: String
        switch s.route {
        case .scan:
            ScanScreen.draw(s, into: &g)
            hints = Keymap.hints(for: s)
        case let .details(pid):
            DetailsScreen.draw(s, pid, into: &g)
            hints = Keymap.hints(for: s)
        case let .device(pid):
            DeviceScreen.draw(s, pid, into: &g)
            hints = Keymap.hints(for: s)
        case let .characteristic(pid, cid):
            CharacteristicScreen.draw(s, pid, cid, into: &g)
            hints = Keymap.hints(for: s)
        case .regions:
            RegionsScreen.draw(s, into: &g)
            hints = Keymap.hints(for: s) + RegionsScreen.hintsSuffix
        }
        Chrome.drawBottom(s, hints: s.log.shown ? LogPanel.hints : hints, into: &g)
        if s.log.shown { LogPanel.draw(s, into: &g) }
        if s.showHelp { HelpOverlay.draw(s, into: &g) }
        PairingOverlay.draw(s, into: &g)
        return g
    }
}
