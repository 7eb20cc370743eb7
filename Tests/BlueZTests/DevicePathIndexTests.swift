import Testing
import Explorer
@testable import BlueZ

/// The device index the advertising fast path looks devices up in, by the C string of a
/// message's path: exactly the devices the String index has, or nothing (the general
/// path then finds it by String).
@Suite("Device path index")
struct DevicePathIndexTests {
    func lookup(_ index: DevicePathIndex, _ path: String) -> PeripheralID? {
        var index = index
        return path.withCString { index.lookup($0) }
    }

    @Test func findsADeviceByTheAddressInItsPath() {
        var index = DevicePathIndex()
        let a = PeripheralID("C0:FF:EE:00:00:01"), b = PeripheralID("C0:FF:EE:00:00:02")
        index["/org/bluez/hci0/dev_C0_FF_EE_00_00_01"] = a
        index["/org/bluez/hci0/dev_C0_FF_EE_00_00_02"] = b
        #expect(lookup(index, "/org/bluez/hci0/dev_C0_FF_EE_00_00_01") == a)
        #expect(lookup(index, "/org/bluez/hci0/dev_C0_FF_EE_00_00_02") == b)
        #expect(lookup(index, "/org/bluez/hci0/dev_C0_FF_EE_00_00_03") == nil)
        #expect(lookup(index, "/org/bluez/hci1/dev_C0_FF_EE_00_00_01") == nil)      // another adapter
        #expect(lookup(index, "/org/bluez/hci0/dev_C0_FF_EE_00_00_01/service0001") == nil)
        #expect(lookup(index, "/org/bluez/hci00/dev_C0_FF_EE_00_00_01") == nil)
        #expect(lookup(index, "") == nil)
        index["/org/bluez/hci0/dev_C0_FF_EE_00_00_01"] = nil
        #expect(lookup(index, "/org/bluez/hci0/dev_C0_FF_EE_00_00_01") == nil)
        #expect(lookup(index, "/org/bluez/hci0/dev_C0_FF_EE_00_00_02") == b)
    }

    /// Paths of another shape, and devices keyed by something other than their path's
    /// address: by String only, never the wrong device. One address under two adapters:
    /// each found under its own adapter.
    @Test func otherShapesAndOtherKeysGoByString() {
        var index = DevicePathIndex()
        let lower = PeripheralID("c0:ff:ee:00:00:01"), odd = PeripheralID("odd"), named = PeripheralID("A")
        let shared = PeripheralID("11:22:33:44:55:66")
        index["/org/bluez/hci0/dev_c0_ff_ee_00_00_01"] = lower
        index["/org/bluez/hci0/dev_C0-FF-EE-00-00-01"] = odd
        index["/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"] = named
        index["/org/bluez/hci0/dev_11_22_33_44_55_66"] = shared
        index["/org/bluez/hci1/dev_11_22_33_44_55_66"] = shared
        #expect(lookup(index, "/org/bluez/hci0/dev_c0_ff_ee_00_00_01") == nil)
        #expect(index["/org/bluez/hci0/dev_c0_ff_ee_00_00_01"] == lower)
        #expect(lookup(index, "/org/bluez/hci0/dev_C0-FF-EE-00-00-01") == nil)
        #expect(index["/org/bluez/hci0/dev_C0-FF-EE-00-00-01"] == odd)
        #expect(lookup(index, "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF") == named)   // the path's device, whatever its key
        #expect(index["/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"] == named)
        #expect(lookup(index, "/org/bluez/hci0/dev_11_22_33_44_55_66") == shared)
        #expect(lookup(index, "/org/bluez/hci1/dev_11_22_33_44_55_66") == shared)
        #expect(lookup(index, "/org/bluez/hci2/dev_11_22_33_44_55_66") == nil)
        // Removing one adapter's device leaves the other's where it was.
        index["/org/bluez/hci1/dev_11_22_33_44_55_66"] = nil
        #expect(lookup(index, "/org/bluez/hci1/dev_11_22_33_44_55_66") == nil)
        #expect(lookup(index, "/org/bluez/hci0/dev_11_22_33_44_55_66") == shared)
        // A device removed under a path it was never added under changes nothing.
        index["/org/bluez/hci2/dev_11_22_33_44_55_66"] = nil
        #expect(lookup(index, "/org/bluez/hci0/dev_11_22_33_44_55_66") == shared)
        index.removeAll()
        #expect(lookup(index, "/org/bluez/hci0/dev_11_22_33_44_55_66") == nil)
        #expect(index["/org/bluez/hci0/dev_c0_ff_ee_00_00_01"] == nil)
    }

    /// Every character of the address is checked: a bad one anywhere sends the path the
    /// String way; the parsed value is the address's 48 bits.
    @Test func everyCharacterOfTheAddressCounts() {
        let good = Array("/org/bluez/hci0/dev_A0_1B_C2_3D_E4_5F".utf8)
        #expect(good.withUnsafeBufferPointer { DevicePathIndex.address($0.baseAddress!, $0.count) } == 0xA01B_C23D_E45F)
        let tail = good.count - 17
        for i in tail..<good.count {
            for bad in ["G", "a", "f", "/", ":", "-", " ", "\0"].map({ UInt8(ascii: $0.unicodeScalars.first!) })
            where bad != good[i] {
                var path = good
                path[i] = bad
                #expect(path.withUnsafeBufferPointer { DevicePathIndex.address($0.baseAddress!, $0.count) } == nil,
                        "\(String(decoding: path, as: UTF8.self))")
            }
        }
        let all = Array("/org/bluez/hci0/dev_00_00_00_00_00_00".utf8), top = Array("/org/bluez/hci0/dev_FF_FF_FF_FF_FF_FF".utf8)
        #expect(all.withUnsafeBufferPointer { DevicePathIndex.address($0.baseAddress!, $0.count) } == 0)
        #expect(top.withUnsafeBufferPointer { DevicePathIndex.address($0.baseAddress!, $0.count) } == 0xFFFF_FFFF_FFFF)
    }
}
