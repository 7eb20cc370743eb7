/// Descriptors a user reads or writes (beyond the 0x2901 and 0x2904 read on connecting):
/// the answer to a descriptor write updates the value shown, or says why it failed.
enum DescriptorReducer {
    /// The owner of a descriptor among the connected peripherals' characteristics.
    static func owner(_ s: AppState, _ did: AttributeID) -> (Peripheral, GATTCharacteristic, GATTDescriptor)? {
        for p in s.peripherals.values {
            for c in (p.services ?? []).flatMap(\.characteristics) {
                if let d = c.descriptors.first(where: { $0.id == did }) { return (p, c, d) }
            }
        }
        return nil
    }

    static func written(_ s: inout AppState, _ did: AttributeID, _ bytes: Bytes, _ error: BackendError?) -> [Effect] {
        let name = owner(s, did).map { AssignedNumbers.descriptorName($0.2.uuid) ?? $0.2.uuid.description } ?? did.path
        if let error {
            s.alert = Alert(.error, "Writing \(name) failed: \(error)", at: s.now)
            return []
        }
        s.descriptorValues[did] = Array(bytes.prefix(512))
        s.alert = Alert(.info, "Wrote \(bytes.count) byte\(bytes.count == 1 ? "" : "s") to \(name)", at: s.now)
        return []
    }
}
