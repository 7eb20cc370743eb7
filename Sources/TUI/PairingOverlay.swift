import Explorer

/// What BlueZ's agent asks while pairing (and `X`'s "forget?"), in a box over the screen.
enum PairingOverlay {
    static func draw(_ s: AppState, into g: inout CellGrid) {
        guard let (title, lines, keys) = content(s) else { return }
        let w = min(g.width - 2, max(44, (lines + [keys]).map { CellGrid.columns(of: $0) }.max()! + 6))
        let h = lines.count + 4
        let (x0, y0) = g.box(width: w, height: h, title: title)
        for (i, line) in lines.enumerated() {
            g.put(line, x: x0 + 3, y: y0 + 1 + i, style: i == 2 ? Style(bold: true) : .plain, maxWidth: w - 5)
        }
        g.put(keys, x: x0 + 3, y: y0 + h - 2, style: .dimmed, maxWidth: w - 5)
    }

    /// Title, lines (the third in bold: the number), and the keys that answer.
    static func content(_ s: AppState) -> (String, [String], String)? {
        if let id = s.forgetAsked, s.forgetThenConnect {
            return ("Clear cache", ["Clear bluetoothd's cache of \(name(s, id))?",
                                    "It is forgotten (its bond too) and connected again when heard."],
                    "y clear · any other key keeps it")
        }
        if let id = s.forgetAsked {
            return ("Forget device", ["Forget \(name(s, id))?", "It is unpaired and removed from bluetoothd's list."],
                    "y forget · any other key keeps it")
        }
        guard let p = s.agentPrompt else { return nil }
        let who = name(s, p.request.device)
        switch p.request.kind {
        case .passkey:
            let typed = Array(p.typed)
            let boxes = (0..<6).map { $0 < typed.count ? String(typed[$0]) : "_" }.joined(separator: " ")
            return ("Pairing", ["\(who) asks for a passkey.", "Type the six digits it shows:", boxes],
                    "Enter sends · Esc refuses · Backspace deletes")
        case .pinCode:
            return ("Pairing", ["\(who) asks for a PIN code.", "Type it:", p.typed + "▏"], "Enter sends · Esc refuses")
        case let .displayPasskey(n, entered):
            return ("Pairing", ["Type this passkey on \(who):", "", String(format6: n), "\(min(entered, 6)) of 6 digits entered"],
                    "Enter or Esc hides this")
        case let .displayPinCode(pin):
            return ("Pairing", ["Type this PIN on \(who):", "", pin], "Enter or Esc hides this")
        case let .confirmation(n):
            return ("Pairing", ["Does \(who) show this number?", "", String(format6: n)], "y yes, pair · n no")
        case .authorization:
            return ("Pairing", [who, "wants to pair (no passkey to compare)."], "y allow · n refuse")
        case let .service(uuid):
            let service = BLEUUID(uuid).flatMap(AssignedNumbers.serviceName) ?? uuid
            return ("Authorize", ["\(who) wants to use the service", service], "y allow · n refuse")
        }
    }

    static func name(_ s: AppState, _ id: PeripheralID) -> String {
        guard let p = s.peripherals[id], let n = p.name, !n.isEmpty else { return id.rawValue }
        return "\(n) (\(id.rawValue))"
    }
}
