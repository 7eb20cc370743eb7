/// What happened to a served peripheral (`bleexplr serve`), as the runner prints it and
/// the peripheral screen shows it.
public enum ServeEvent: Equatable, Sendable {
    /// The GATT application and the advertisement are registered on `adapter`.
    case registered(adapter: String)
    case registrationFailed(String)
    /// bluetoothd went away (its registrations with it) or came back.
    case bluezGone
    case bluezReturned
    /// bluetoothd released the advertisement (e.g. the adapter powered off).
    case advertisementReleased
    case read(CharacteristicEvent, offset: Int, bytes: Bytes)
    /// `bytes`: the whole value after the write; the central wrote what is past `offset`.
    case written(CharacteristicEvent, bytes: Bytes, type: String, offset: Int)
    case subscribed(CharacteristicEvent)
    /// A central subscribed, and bluetoothd took a socket for the notifications
    /// (AcquireNotify), telling the link's MTU.
    case acquired(CharacteristicEvent, mtu: Int)
    case unsubscribed(CharacteristicEvent)
    /// A central confirmed an indication.
    case confirmed(CharacteristicEvent)
    case unregistered
}

/// Which attribute, and who asked (BlueZ passes the device object in the options).
public struct CharacteristicEvent: Equatable, Sendable {
    public var uuid: BLEUUID
    public var path: String
    public var descriptor: Bool
    /// The central's address, when BlueZ said.
    public var central: String?
    public init(uuid: BLEUUID, path: String, descriptor: Bool = false, central: String?) {
        self.uuid = uuid; self.path = path; self.descriptor = descriptor; self.central = central
    }

    /// `/org/bluez/hci0/dev_F0_F1_F2_F3_F4_00` → `F0:F1:F2:F3:F4:00`
    public static func address(fromDevicePath path: String) -> String? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        let a = last.dropFirst(4).replacing("_", with: ":")
        return a.count == 17 ? String(a) : nil
    }
}
