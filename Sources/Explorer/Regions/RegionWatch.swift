/// iBeacon regions: "home" is inside while any of its beacons is heard strongly enough.
///
/// Entering needs one report at or above `enterRSSI`; leaving needs `exitAfter` seconds
/// without any report at or above `exitRSSI` (lower than the enter threshold). The gap
/// between the thresholds and the exit delay is what stops a beacon hovering at the edge
/// of the region from flapping in and out; several beacons per region (one per room)
/// keep it inside as long as any of them is close. Pure state: the reducer feeds it
/// adverts and ticks; transitions come back as values.
public struct Region: Equatable, Sendable {
    public let name: String
    public let uuid: BLEUUID
    public let major: UInt16?
    public let minor: UInt16?

    public init(name: String, uuid: BLEUUID, major: UInt16? = nil, minor: UInt16? = nil) {
        self.name = name; self.uuid = uuid; self.major = major; self.minor = minor
    }

    /// `NAME=UUID[:MAJOR[:MINOR]]`
    public static func parse(_ s: String) -> Result<Region, HookSpecError> {
        let bad = HookSpecError("--region takes NAME=UUID[:MAJOR[:MINOR]], not '\(TerminalSafe.text(s))'")
        guard let eq = s.firstIndex(of: "=") else { return .failure(bad) }
        let name = String(s[..<eq])
        let parts = s[s.index(after: eq)...].split(separator: ":", omittingEmptySubsequences: false)
        guard !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { TerminalSafe.isUnsafe($0) }),
              (1...3).contains(parts.count), parts[0].filter({ $0 != "-" }).count == 32, let uuid = BLEUUID(String(parts[0])) else {
            return .failure(bad)
        }
        func number(_ i: Int) -> UInt16?? {
            guard i < parts.count else { return .some(nil) }
            guard let n = UInt16(parts[i]) else { return nil }
            return .some(n)
        }
        guard let major = number(1), let minor = number(2) else { return .failure(bad) }
        return .success(Region(name: name, uuid: uuid, major: major, minor: minor))
    }

    public func matches(uuid u: BLEUUID, major ma: UInt16, minor mi: UInt16) -> Bool {
        u == uuid && (major == nil || major == ma) && (minor == nil || minor == mi)
    }

    public var spec: String {
        uuid.canonical + (major.map { ":\($0)" } ?? "") + (minor.map { ":\($0)" } ?? "")
    }
}

public struct RegionConfig: Equatable, Sendable {
    public var enterRSSI: Int
    public var exitRSSI: Int
    public var exitAfter: Double
    public init(enterRSSI: Int = -75, exitRSSI: Int = -85, exitAfter: Double = 10) {
        self.enterRSSI = enterRSSI; self.exitRSSI = exitRSSI; self.exitAfter = exitAfter
    }
}

/// One beacon heard in a region.
public struct BeaconSighting: Equatable, Sendable {
    public let address: String
    public let major: UInt16
    public let minor: UInt16
    /// nil: heard, but the controller gave no RSSI (127, "not available").
    public var rssi: Int?
    public var at: Timestamp
}

public struct RegionState: Equatable, Sendable {
    public let region: Region
    public var inside = false
    public var since: Timestamp?
    /// The last report at or above the exit threshold: the region holds until
    /// `exitAfter` seconds past it.
    public var heldAt: Timestamp?
    public var beacons: [BeaconSighting] = []
    public init(region: Region) { self.region = region }
}

public struct RegionTransition: Equatable, Sendable {
    public enum Kind: String, Sendable { case enter, exit }
    public let region: String
    public let kind: Kind
    public let at: Timestamp
    /// The beacon that brought the region in, or the last one that held it.
    public let beacon: BeaconSighting?

    public var json: String {
        var j = JSONLine()
        j.time("t", at)
        fields(&j)
        return j.finish()
    }

    /// The event, the region and the beacon (the recording's region line has them too).
    func fields(_ j: inout JSONLine) {
        j.string("event", kind.rawValue); j.string("region", region)
        if let b = beacon {
            j.string("address", b.address); j.int("major", Int(b.major)); j.int("minor", Int(b.minor)); if let r = b.rssi { j.int("rssi", r) }
        }
    }
}

public struct RegionWatch: Equatable, Sendable {
    public var config = RegionConfig()
    public var regions: [RegionState] = []
    /// The latest transitions, newest last (bounded).
    public var log: [RegionTransition] = []
    static let logLimit = 50
    /// Beacons of a region heard without any RSSI, in the order first heard: distance
    /// cannot be judged, so they never bring a region in (monitor warns about them).
    public private(set) var unmeasured: [String] = []

    public init(regions: [Region] = [], config: RegionConfig = RegionConfig()) {
        self.config = config
        self.regions = regions.map(RegionState.init)
    }

    /// An iBeacon report. Returns the regions it brought in. Without an RSSI it is only
    /// listed: nothing says how near it is.
    public mutating func observe(address: String, uuid: BLEUUID, major: UInt16, minor: UInt16, rssi: Int?,
                                 at: Timestamp) -> [RegionTransition] {
        var out: [RegionTransition] = []
        for i in regions.indices where regions[i].region.matches(uuid: uuid, major: major, minor: minor) {
            let sighting = BeaconSighting(address: address, major: major, minor: minor, rssi: rssi, at: at)
            if let k = regions[i].beacons.firstIndex(where: { $0.address == address && $0.major == major && $0.minor == minor }) {
                regions[i].beacons[k] = sighting
            } else if regions[i].beacons.count < 32 {
                regions[i].beacons.append(sighting)
            }
            guard let rssi else {
                if !unmeasured.contains(address), unmeasured.count < 64 { unmeasured.append(address) }
                continue
            }
            if rssi >= config.exitRSSI { regions[i].heldAt = at }
            if !regions[i].inside, rssi >= config.enterRSSI {
                regions[i].inside = true
                regions[i].since = at
                regions[i].heldAt = at
                out.append(RegionTransition(region: regions[i].region.name, kind: .enter, at: at, beacon: sighting))
            }
        }
        record(out)
        return out
    }

    /// Time passes: regions not held for `exitAfter` seconds are left.
    public mutating func tick(_ now: Timestamp) -> [RegionTransition] {
        var out: [RegionTransition] = []
        for i in regions.indices where regions[i].inside {
            let held = regions[i].heldAt ?? regions[i].since ?? now
            if now - held >= config.exitAfter {
                regions[i].inside = false
                regions[i].since = now
                let last = regions[i].beacons.max { $0.at < $1.at }
                out.append(RegionTransition(region: regions[i].region.name, kind: .exit, at: now, beacon: last))
            }
        }
        // Beacons not heard for a minute leave the panel.
        for i in regions.indices { regions[i].beacons.removeAll { now - $0.at > 60 } }
        record(out)
        return out
    }

    private mutating func record(_ t: [RegionTransition]) {
        guard !t.isEmpty else { return }
        log += t
        if log.count > Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
    }
}
