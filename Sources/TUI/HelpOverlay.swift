import Explorer

/// `?`: every key, in a box over the current screen; it scrolls when it does not fit.
enum HelpOverlay {
    static func draw(_ s: AppState, into g: inout CellGrid) {
        let layout = HelpLayout(width: g.width, height: g.height)
        let w = layout.boxWidth, h = layout.boxHeight, keyW = layout.keyWidth
        let (x0, y0) = g.box(width: w, height: h, title: "Keys")
        let top = min(s.helpTop, layout.maxTop)
        for (i, line) in layout.lines.dropFirst(top).prefix(layout.visible).enumerated() {
            g.put(fit(line.keys, keyW), x: x0 + 2, y: y0 + 2 + i, style: .accent)
            g.put(line.text, x: x0 + 4 + keyW, y: y0 + 2 + i, maxWidth: w - keyW - 6)
        }
        let footer: String
        if layout.maxTop == 0 {
            footer = " any key closes "
        } else {
            let last = min(layout.lines.count, top + layout.visible)
            footer = " \(top > 0 ? "↑" : " ")\(last < layout.lines.count ? "↓" : " ") \(top + 1)-\(last) of \(layout.lines.count) · j k scroll · other keys close "
        }
        g.put(footer, x: max(x0 + 1, x0 + w - CellGrid.columns(of: footer) - 2), y: y0 + h - 1, style: .dimmed, maxWidth: w - 2)
    }
}
