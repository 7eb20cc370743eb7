import Explorer

/// `?`: every key, in a box over the current screen.
enum HelpOverlay {
    static func draw(into g: inout CellGrid) {
        let rows = Keymap.help
        let keyW = rows.map { CellGrid.columns(of: $0.0) }.max() ?? 0
        let textW = rows.map { CellGrid.columns(of: $0.1) }.max() ?? 0
        let w = min(g.width - 2, keyW + textW + 7), h = min(g.height - 2, rows.count + 4)
        let (x0, y0) = g.box(width: w, height: h, title: "Keys")
        for (i, (key, text)) in rows.prefix(h - 4).enumerated() {
            g.put(fit(key, keyW), x: x0 + 2, y: y0 + 2 + i, style: .accent)
            g.put(text, x: x0 + 4 + keyW, y: y0 + 2 + i, maxWidth: w - keyW - 6)
        }
        g.put("any key closes", x: x0 + w - 17, y: y0 + h - 1, style: .dimmed)
    }
}
