import Testing
@testable import Explorer

/// AES-128 against FIPS-197's worked examples, CCM against NIST SP 800-38C Appendix C,
/// and both against the encryption example on bthome.io/encryption.
@Suite("AES-CCM")
struct AESCCMTests {
    static func bytes(_ hexText: String) -> Bytes {
        let digits = Array(hexText.filter { $0 != " " })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// FIPS-197 §5.1.1's S-box example ({53} -> {ed}) and the two ends of the table.
    @Test func sbox() {
        #expect(AES128.sbox[0x00] == 0x63)
        #expect(AES128.sbox[0x53] == 0xED)
        #expect(AES128.sbox[0xFF] == 0x16)
        #expect(Set(AES128.sbox).count == 256)
    }

    /// FIPS-197 Appendix B (the cipher example) and Appendix C.1 (AES-128).
    @Test func blockCipher() {
        let b = AES128(key: Self.bytes("2b7e151628aed2a6abf7158809cf4f3c"))!
        #expect(b.encrypt(Self.bytes("3243f6a8885a308d313198a2e0370734")) == Self.bytes("3925841d02dc09fbdc118597196a0b32"))
        let c = AES128(key: Self.bytes("000102030405060708090a0b0c0d0e0f"))!
        #expect(c.encrypt(Self.bytes("00112233445566778899aabbccddeeff")) == Self.bytes("69c4e0d86a7b0430d8cdb78070b4c55a"))
        #expect(AES128(key: Bytes(repeating: 0, count: 15)) == nil)
    }

    /// SP 800-38C Appendix C, examples 1-4: nonce 7, 8, 12, 13 bytes; tag 4, 6, 8, 14;
    /// example 4's 65536 bytes of associated data take the 0xFFFE length form.
    @Test(arguments: [
        ("10111213141516", "0001020304050607", "20212223", "7162015b4dac255d"),
        ("1011121314151617", "000102030405060708090a0b0c0d0e0f", "202122232425262728292a2b2c2d2e2f",
         "d2a1f0e051ea5f62081a7792073d593d1fc64fbfaccd"),
        ("101112131415161718191a1b", "000102030405060708090a0b0c0d0e0f10111213",
         "202122232425262728292a2b2c2d2e2f3031323334353637",
         "e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5484392fbc1b09951"),
        ("101112131415161718191a1b1c", "example 4", "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f",
         "69915dad1e84c6376a68c2967e4dab615ae0fd1faec44cc484828529463ccf72b4ac6bec93e8598e7f0dadbcea5b"),
    ])
    func nistExamples(nonce: String, aad: String, plaintext: String, expected: String) {
        let key = Self.bytes("404142434445464748494a4b4c4d4e4f")
        let a = aad == "example 4" ? Bytes((0..<65536).map { UInt8($0 & 0xFF) }) : Self.bytes(aad)
        let p = Self.bytes(plaintext), c = Self.bytes(expected)
        let tagLength = c.count - p.count
        let sealed = AESCCM.seal(p, key: key, nonce: Self.bytes(nonce), aad: a, tagLength: tagLength)
        #expect(sealed.map { $0.ciphertext + $0.tag } == c)
        let ciphertext = Array(c.prefix(p.count)), tag = Array(c.suffix(tagLength))
        #expect(AESCCM.open(ciphertext, tag: tag, key: key, nonce: Self.bytes(nonce), aad: a) == p)
        var forged = tag
        forged[0] ^= 0x01
        #expect(AESCCM.open(ciphertext, tag: forged, key: key, nonce: Self.bytes(nonce), aad: a) == nil)
        var flipped = ciphertext
        flipped[flipped.count - 1] ^= 0x80
        #expect(AESCCM.open(flipped, tag: tag, key: key, nonce: Self.bytes(nonce), aad: a) == nil)
    }

    /// bthome.io/encryption: 02CA09 03BF13 with key 231d39c1..., nonce = MAC 5448E68F80A5,
    /// UUID D2FC, device information 41, counter 33221100 -> ciphertext e445f3c9962b, MIC 6c7c4519.
    @Test func bthomeSpecExample() {
        let key = Self.bytes("231d39c1d7cc1ab1aee224cd096db932")
        let nonce = Self.bytes("5448e68f80a5d2fc4133221100")
        let sealed = AESCCM.seal(Self.bytes("02ca0903bf13"), key: key, nonce: nonce, tagLength: 4)
        #expect(sealed?.ciphertext == Self.bytes("e445f3c9962b"))
        #expect(sealed?.tag == Self.bytes("6c7c4519"))
        #expect(AESCCM.open(Self.bytes("e445f3c9962b"), tag: Self.bytes("6c7c4519"), key: key, nonce: nonce) == Self.bytes("02ca0903bf13"))
    }

    @Test func sizesCCMDoesNotAllow() {
        let key = Bytes(repeating: 1, count: 16)
        #expect(AESCCM.seal([1], key: key, nonce: Bytes(repeating: 0, count: 6), tagLength: 4) == nil)
        #expect(AESCCM.seal([1], key: key, nonce: Bytes(repeating: 0, count: 14), tagLength: 4) == nil)
        #expect(AESCCM.seal([1], key: key, nonce: Bytes(repeating: 0, count: 13), tagLength: 5) == nil)
        #expect(AESCCM.seal([1], key: key, nonce: Bytes(repeating: 0, count: 13), tagLength: 18) == nil)
        #expect(AESCCM.open([1], tag: [1, 2], key: key, nonce: Bytes(repeating: 0, count: 13)) == nil)
        #expect(AESCCM.open([1], tag: [1, 2, 3, 4], key: [1], nonce: Bytes(repeating: 0, count: 13)) == nil)
        // An empty message still has a tag, and opens to nothing.
        let empty = AESCCM.seal([], key: key, nonce: Bytes(repeating: 0, count: 13), tagLength: 4)!
        #expect(AESCCM.open([], tag: empty.tag, key: key, nonce: Bytes(repeating: 0, count: 13)) == [])
    }
}
