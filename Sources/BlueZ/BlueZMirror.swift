import DBus
import Explorer

/// A copy of bluetoothd's object tree: path -> interface -> property -> value, kept
/// current from GetManagedObjects, InterfacesAdded/Removed and PropertiesChanged.
/// Every value in it came from the bus: read it through the typed accessors only.
public struct BlueZMirror: Equatable, Sendable {
    public typealias Properties = [String: DBusValue]
    public private(set) var objects: [String: [String: Properties]] = [:]

    public init() {}

    public subscript(path: String, interface: String) -> Properties? { objects[path]?[interface] }

    /// Replaces everything with a GetManagedObjects reply (`a{oa{sa{sv}}}`). Returns false
    /// when the reply does not have that shape.
    @discardableResult
    public mutating func load(_ reply: DBusValue) -> Bool {
        guard let entries = reply.entries else { return false }
        objects = [:]
        for e in entries {
            guard let path = e.key.string, let ifaces = e.value.entries else { continue }
            objects[path] = Self.interfaces(ifaces)
        }
        return true
    }

    /// InterfacesAdded(o, a{sa{sv}}).
    public mutating func add(path: String, _ interfaces: DBusValue) {
        guard let e = interfaces.entries else { return }
        for (name, props) in Self.interfaces(e) { objects[path, default: [:]][name] = props }
    }

    /// InterfacesRemoved(o, as). Returns the interfaces that were there.
    @discardableResult
    public mutating func remove(path: String, _ interfaces: [String]) -> [String] {
        var removed: [String] = []
        for i in interfaces where objects[path]?.removeValue(forKey: i) != nil { removed.append(i) }
        if objects[path]?.isEmpty == true { objects.removeValue(forKey: path) }
        return removed
    }

    /// PropertiesChanged(s, a{sv}, as). Invalidated properties are dropped.
    public mutating func change(path: String, interface: String, changed: Properties, invalidated: [String]) {
        // One lookup of the (long) path, then in-place edits: this runs for every
        // PropertiesChanged, thousands a second in a busy room.
        guard let i = objects.index(forKey: path) else { return }
        objects.values[i][interface]?.update(changed, invalidated)
    }

    public mutating func removeAll() { objects = [:] }

    /// Paths that have `interface`, sorted (paths sort in BlueZ handle order).
    public func paths(with interface: String, under prefix: String = "/") -> [String] {
        objects.compactMap { path, ifaces in
            ifaces[interface] != nil && (path == prefix || path.hasPrefix(prefix == "/" ? "/" : prefix + "/")) ? path : nil
        }.sorted()
    }

    /// Elements of an array or dictionary, and bytes of a string, the mirror keeps of a
    /// value: bluetoothd (or whoever owns org.bluez) may send a device with 100,000 UUIDs
    /// or a 64 KiB name, and the mirror keeps every object it is told of. BlueZ's real
    /// values are far smaller (a value is at most 512 bytes, a name 248).
    static let maxElements = 1024
    static let maxStringBytes = 1024
    static let maxBytes = 4096

    /// `v` with its arrays, dictionaries, strings and byte arrays cut to the bounds above,
    /// at any depth.
    static func bounded(_ v: DBusValue) -> DBusValue {
        switch v {
        case let .string(s) where s.utf8.count > maxStringBytes: return .string(ReportBounds.prefix(s, bytes: maxStringBytes))
        case let .bytes(b) where b.count > maxBytes: return .bytes(Array(b.prefix(maxBytes)))
        case let .variant(inner): return .variant(bounded(inner))
        case let .array(element, items): return .array(element: element, items.prefix(maxElements).map(bounded))
        case let .dict(k, t, entries):
            return .dict(key: k, value: t, entries.prefix(maxElements).map { DBusDictEntry(bounded($0.key), bounded($0.value)) })
        case let .structure(fields): return .structure(fields.map(bounded))
        default: return v
        }
    }

    static func interfaces(_ entries: [DBusDictEntry]) -> [String: Properties] {
        var out: [String: Properties] = [:]
        for e in entries {
            guard let name = e.key.string else { continue }
            var props: Properties = [:]
            for p in e.value.entries ?? [] { if let k = p.key.string { props[k] = Self.bounded(p.value.unwrapped) } }
            out[name] = props
        }
        return out
    }
}

extension Dictionary where Key == String, Value == DBusValue {
    mutating func update(_ changed: [String: DBusValue], _ invalidated: [String]) {
        for (k, v) in changed { self[k] = BlueZMirror.bounded(v.unwrapped) }
        for k in invalidated { removeValue(forKey: k) }
    }
}
