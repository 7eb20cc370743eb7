/// AES-128 (FIPS-197), forward cipher only: CCM never runs the block cipher backwards.
/// It is here because Linux has no CryptoKit and the package takes no remote dependency;
/// encrypted BTHome (and Xiaomi MiBeacon) advertisements need nothing more.
///
/// Written to be read, not to be fast or constant-time: the S-box is a table indexed by
/// secret bytes. That is acceptable for opening a sensor's advertisement with the key its
/// owner typed in; it is not a cipher for a server.
struct AES128 {
    /// The 11 round keys, 16 bytes each, in the order the rounds use them.
    private let roundKeys: Bytes

    /// nil unless the key is 16 bytes.
    init?(key: Bytes) {
        guard key.count == 16 else { return nil }
        // Key expansion (FIPS-197 §5.2) a byte at a time: every 4-byte word is the word
        // 16 bytes back XOR the word just before it, which at the start of each round key
        // is first rotated, substituted and XORed with the round constant.
        var w = key
        w.reserveCapacity(176)
        var roundConstant: UInt8 = 0x01
        while w.count < 176 {
            var t = Array(w[(w.count - 4)...])
            if w.count % 16 == 0 {
                t = [Self.sbox[Int(t[1])] ^ roundConstant, Self.sbox[Int(t[2])], Self.sbox[Int(t[3])], Self.sbox[Int(t[0])]]
                roundConstant = Self.double(roundConstant)
            }
            for byte in t { w.append(w[w.count - 16] ^ byte) }
        }
        roundKeys = w
    }

    /// One 16-byte block. The state is the block itself: byte `i` is row `i % 4` of
    /// column `i / 4`, as FIPS-197 §3.4 lays the input out.
    func encrypt(_ block: Bytes) -> Bytes {
        precondition(block.count == 16, "AES blocks are 16 bytes")
        var s = block
        addRoundKey(&s, 0)
        for round in 1...10 {
            for i in 0..<16 { s[i] = Self.sbox[Int(s[i])] }
            // ShiftRows: row r moves r columns to the left.
            let before = s
            for c in 0..<4 {
                for r in 1..<4 { s[r + 4 * c] = before[r + 4 * ((c + r) % 4)] }
            }
            if round < 10 { mixColumns(&s) }
            addRoundKey(&s, round)
        }
        return s
    }

    private func addRoundKey(_ s: inout Bytes, _ round: Int) {
        for i in 0..<16 { s[i] ^= roundKeys[16 * round + i] }
    }

    /// Each column times the fixed polynomial {03}x³ + {01}x² + {01}x + {02} (FIPS-197 §5.1.3).
    private func mixColumns(_ s: inout Bytes) {
        for c in 0..<4 {
            let a0 = s[4 * c], a1 = s[4 * c + 1], a2 = s[4 * c + 2], a3 = s[4 * c + 3]
            let d0 = Self.double(a0), d1 = Self.double(a1), d2 = Self.double(a2), d3 = Self.double(a3)
            s[4 * c] = d0 ^ (d1 ^ a1) ^ a2 ^ a3
            s[4 * c + 1] = a0 ^ d1 ^ (d2 ^ a2) ^ a3
            s[4 * c + 2] = a0 ^ a1 ^ d2 ^ (d3 ^ a3)
            s[4 * c + 3] = (d0 ^ a0) ^ a1 ^ a2 ^ d3
        }
    }

    /// Multiplication by {02} in GF(2⁸) modulo x⁸ + x⁴ + x³ + x + 1.
    static func double(_ a: UInt8) -> UInt8 { (a << 1) ^ (a & 0x80 != 0 ? 0x1B : 0) }

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a, b = b, product: UInt8 = 0
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            a = double(a)
            b >>= 1
        }
        return product
    }

    /// The S-box computed from its definition (FIPS-197 §5.1.1) rather than typed in:
    /// the multiplicative inverse in GF(2⁸) (0 for 0), then the affine transformation.
    static let sbox: [UInt8] = (0..<256).map { x in
        let inverse = x == 0 ? nil : (1...255).first { multiply(UInt8(x), UInt8($0)) == 1 }
        let b = UInt8(inverse ?? 0)
        func rotl(_ v: UInt8, _ n: UInt8) -> UInt8 { (v << n) | (v >> (8 - n)) }
        return b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4) ^ 0x63
    }
}

/// CCM, counter with CBC-MAC (NIST SP 800-38C), over AES-128: encryption and a tag in one.
/// BTHome uses a 13-byte nonce and a 4-byte tag (its "MIC"); the general sizes are here
/// so the NIST examples can check it.
enum AESCCM {
    /// The ciphertext (as long as the plaintext) and its tag; nil when a size is not one
    /// CCM allows (key 16 bytes, nonce 7...13, tag 4, 6, ..., 16, associated data below 4 GiB).
    static func seal(_ plaintext: Bytes, key: Bytes, nonce: Bytes, aad: Bytes = [], tagLength: Int) -> (ciphertext: Bytes, tag: Bytes)? {
        guard let cipher = AES128(key: key), fits(plaintext.count, nonce, aad, tagLength) else { return nil }
        let tag = authenticate(cipher, plaintext, nonce, aad, tagLength)
        return (applyCounter(cipher, plaintext, nonce), tag)
    }

    /// The plaintext, or nil when the tag does not match (wrong key, nonce or data) or a
    /// size is not one CCM allows.
    static func open(_ ciphertext: Bytes, tag: Bytes, key: Bytes, nonce: Bytes, aad: Bytes = []) -> Bytes? {
        guard let cipher = AES128(key: key), fits(ciphertext.count, nonce, aad, tag.count) else { return nil }
        let plaintext = applyCounter(cipher, ciphertext, nonce)
        let expected = authenticate(cipher, plaintext, nonce, aad, tag.count)
        // Compare every byte rather than stopping at the first difference.
        var difference: UInt8 = 0
        for i in 0..<tag.count { difference |= expected[i] ^ tag[i] }
        return difference == 0 ? plaintext : nil
    }

    private static func fits(_ length: Int, _ nonce: Bytes, _ aad: Bytes, _ tagLength: Int) -> Bool {
        guard (7...13).contains(nonce.count), (4...16).contains(tagLength), tagLength % 2 == 0,
              UInt64(aad.count) < 1 << 32 else { return false }
        // The message length has to fit the q = 15 - n bytes B0 keeps for it.
        let q = 15 - nonce.count
        return q >= 8 || length < 1 << (8 * q)
    }

    /// Counter block i: flags (q - 1), the nonce, i in q big-endian bytes.
    private static func counterBlock(_ nonce: Bytes, _ i: Int) -> Bytes {
        let q = 15 - nonce.count
        var block = [UInt8(q - 1)] + nonce + Bytes(repeating: 0, count: q)
        var n = i
        for k in 0..<q {
            block[15 - k] = UInt8(n & 0xFF)
            n >>= 8
        }
        return block
    }

    /// Encryption and decryption alike: XOR with E(counter 1), E(counter 2), ...
    private static func applyCounter(_ cipher: AES128, _ data: Bytes, _ nonce: Bytes) -> Bytes {
        var out = data
        var offset = 0
        var i = 1
        while offset < data.count {
            let keystream = cipher.encrypt(counterBlock(nonce, i))
            for k in 0..<min(16, data.count - offset) { out[offset + k] ^= keystream[k] }
            offset += 16
            i += 1
        }
        return out
    }

    /// The CBC-MAC of B0, the encoded associated data and the plaintext, each zero-padded
    /// to whole blocks, then masked with E(counter 0) and cut to the tag length.
    private static func authenticate(_ cipher: AES128, _ plaintext: Bytes, _ nonce: Bytes, _ aad: Bytes, _ tagLength: Int) -> Bytes {
        let q = 15 - nonce.count
        let flags = (aad.isEmpty ? 0 : 0x40) | UInt8((tagLength - 2) / 2) << 3 | UInt8(q - 1)
        var b0 = [flags] + nonce + Bytes(repeating: 0, count: q)
        var length = plaintext.count
        for k in 0..<q {
            b0[15 - k] = UInt8(length & 0xFF)
            length >>= 8
        }
        var mac = cipher.encrypt(b0)
        func absorb(_ data: Bytes) {
            var offset = 0
            while offset < data.count {
                for k in 0..<min(16, data.count - offset) { mac[k] ^= data[offset + k] }
                mac = cipher.encrypt(mac)
                offset += 16
            }
        }
        if !aad.isEmpty {
            // The length comes first: two bytes below 2¹⁶ - 2⁸, else 0xFFFE and four bytes.
            let n = aad.count
            let prefix: Bytes = n < 0xFF00
                ? [UInt8(n >> 8), UInt8(n & 0xFF)]
                : [0xFF, 0xFE, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            absorb(prefix + aad)
        }
        absorb(plaintext)
        let mask = cipher.encrypt(counterBlock(nonce, 0))
        return (0..<tagLength).map { mac[$0] ^ mask[$0] }
    }
}
