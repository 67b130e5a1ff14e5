import CMCU

/// How the store's flash driver lays out one page of the flash part: a file per page, so that a page erase is a
/// file's removal and no table anywhere needs rewriting. Words are little-endian:
///
///        0  state        UInt32    erased (0xFFFF_FFFF): free; `inUse`: a file; 0: dead, being erased
///        4  generation   UInt32    a file's copy on a new page has the next one; after a cut the higher wins
///        8  name         16 bytes  UTF-8, NUL-padded
///       24  lengths      58 words  the file's committed length, a word per synchronizeFile; the last valid wins
///      256  data         3,840 bytes
///
/// The state word is programmed last when a page is taken, so a page is a file only once its header is whole;
/// a length word holds the length and its complement, so a word torn by a power cut never reads as a length.
enum FlashPage {
    static let bytes = Int(MCU_FLASH_PAGE_BYTES)
    static let count = Int(MCU_FLASH_PAGES)
    static let inUse: UInt32 = 0x5E6A_0F11
    static let dead: UInt32 = 0
    static let erased: UInt32 = 0xFFFF_FFFF
    static let generationOffset = 4
    static let nameOffset = 8
    static let nameBytes = 16
    static let lengthsOffset = 24
    static let lengthSlots = 58
    static let dataOffset = 256
    static let dataBytes = bytes - dataOffset

    /// A length word: the length in the low half, its complement in the high one.
    static func lengthWord(_ length: Int) -> UInt32 {
        let low = UInt32(truncatingIfNeeded: length) & 0xFFFF
        return low | (~low << 16)
    }

    /// The length a word holds, or nil for an erased or torn one.
    static func length(of word: UInt32) -> Int? {
        let low = word & 0xFFFF
        return word >> 16 == ~low & 0xFFFF ? Int(low) : nil
    }
}
