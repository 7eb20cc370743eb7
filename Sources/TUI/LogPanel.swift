import Explorer

/// `L`: the event log over the current screen, newest first, scrolling; problems in red.
enum LogPanel {
    static let hints = "j k scroll · e problems only · L or Esc closes · q quit"

    static func draw(_ s: AppState, into g: inout CellGrid) {
        let log = s.log, listed = log.listed
        let title = "Event log: \(log.total) event\(log.total == 1 ? "" : "s")" + (log.problemsOnly ? ", \(listed.count) problems" : "")
        let (x0, y0) = g.box(width: g.width, height: g.height - 3, title: title)
        let visible = EventLog.visibleRows(height: g.height)
        let top = min(log.top, max(0, listed.count - visible))
        let first = listed.isEmpty ? 0 : top + 1, last = min(listed.count, top + visible)
        g.put((log.problemsOnly ? "problems only" : "everything") + ", newest first · \(first)-\(last) of \(listed.count)",
              x: x0 + 2, y: y0 + 1, style: .dimmed, maxWidth: g.width - 4)
        if listed.isEmpty {
            g.put(log.problemsOnly ? "No problems so far." : "Nothing yet.", x: x0 + 2, y: y0 + 2, style: .dimmed)
            return
        }
        for (i, e) in listed[top..<last].enumerated() {
            let y = y0 + 2 + i
            let x = g.put(e.at.clockTime + "  ", x: x0 + 2, y: y, style: .dimmed)
            g.put(e.text, x: x0 + 2 + x, y: y, style: e.problem ? .error : .plain, maxWidth: g.width - x - 5)
        }
        scrollBar(x: g.width - 2, y: y0 + 2, visible: visible, first: top, count: listed.count, into: &g)
    }
}
