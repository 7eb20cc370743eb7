import Testing
@testable import Explorer
@testable import DBus
@testable import BlueZ

/// What `serve` hands BlueZ: GetManagedObjects and the advertisement, from a spec.
@Suite("GATT objects for serve")
struct GattObjectsTests {
    static let spec = PeripheralSpec(
        localName: "bx Thermo", advertisedServices: ["181A"], manufacturerData: [0xFFFF: [0xB1, 0xE0]],
        services: [ServiceSpec(uuid: "181A", characteristics: [
            CharacteristicSpec(uuid: "2A6E", flags: ["read", "notify"], value: [0x34, 0x08],
                               descriptors: [DescriptorSpec(uuid: "2901", value: Array("Room".utf8))]),
            CharacteristicSpec(uuid: "2A6F", flags: ["read"], value: [0x88, 0x13]),
        ])])

    @Test func managedObjectsAreTheTreeWithTheirProperties() throws {
        let o = GattObjects(spec: Self.spec, root: "/org/bleexplr/serve1", advertisementPath: "/org/bleexplr/serve1adv")
        let all = o.managedObjects()
        #expect(all.signature == "a{oa{sa{sv}}}")
        let paths = (all.entries ?? []).compactMap(\.key.string)
        #expect(paths == ["/org/bleexplr/serve1/service0", "/org/bleexplr/serve1/service0/char0",
                          "/org/bleexplr/serve1/service0/char0/desc0", "/org/bleexplr/serve1/service0/char1"])
        let char0 = try #require(o.object("/org/bleexplr/serve1/service0/char0"))
        let props = o.properties(char0)
        #expect(props["UUID"]?.string == "00002a6e-0000-1000-8000-00805f9b34fb")
        #expect(props["Service"] == .objectPath("/org/bleexplr/serve1/service0"))
        #expect(props["Flags"]?.strings == ["read", "notify"])
        #expect(props["Value"]?.bytes == [0x34, 0x08])
        #expect(props["Descriptors"] == .array(element: "o", [.objectPath("/org/bleexplr/serve1/service0/char0/desc0")]))
        let svc = try #require(o.object("/org/bleexplr/serve1/service0"))
        #expect(o.properties(svc)["Primary"] == .bool(true))
        #expect(o.characteristics("2A6F") == ["/org/bleexplr/serve1/service0/char1"])
    }

    @Test func theAdvertisement() {
        let o = GattObjects(spec: Self.spec, root: "/r", advertisementPath: "/r/adv")
        let a = o.advertisementProperties()
        #expect(a["Type"] == .string("peripheral"))
        #expect(a["Discoverable"] == .bool(true))   // seen by transport-only discovery on BlueZ >= 5.67
        #expect(a["LocalName"] == .string("bx Thermo"))
        #expect(a["ServiceUUIDs"]?.strings == ["0000181a-0000-1000-8000-00805f9b34fb"])
        #expect(a["ManufacturerData"]?.signature == "a{qv}")
        #expect(a["ManufacturerData"]?.entries?.first?.value == .variant(.bytes([0xB1, 0xE0])))
        #expect(Self.spec.advertisingSize == 3 + 11 + 4 + 6)
    }

    @Test func centralAddressFromBlueZsDevicePath() {
        #expect(CharacteristicEvent.address(fromDevicePath: "/org/bluez/hci7/dev_F0_F1_F2_F3_F4_00") == "F0:F1:F2:F3:F4:00")
        #expect(CharacteristicEvent.address(fromDevicePath: "/org/bluez/hci7") == nil)
        #expect(CharacteristicEvent.address(fromDevicePath: "/org/bluez/hci7/dev_x") == nil)
    }
}
