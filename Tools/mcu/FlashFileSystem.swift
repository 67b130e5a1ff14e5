import CLinux
import CMCU
import SystemIO

/// The sighting store's file system on the microcontroller: one directory on a NOR flash part, a file a page
/// (layout in FlashPage), driven through the part's two operations, erase a page and program a word. The store's
/// own files (RingLog, SightingStore) run on it unchanged; what a POSIX file system gives them, this gives so:
///
/// - **a name**: the page header; `fileNames` is the pages in use. Mounting erases a copy that one with a higher
///   generation supersedes; a page a cut left half-taken or dead is erased when a page is wanted.
/// - **`write`**: programs the words of the bytes, a word's unwritten bytes left 0xFF, so the word a write ends in
///   is programmed once more by the next; every write is at least 4 bytes (a record is at least 20), so no word
///   is programmed more than twice between erases (the part's limit).
/// - **`synchronizeFile`**: programs the next length word. Only bytes below the last length word are the file
///   after a power cut: a write torn by the cut lies past it, is never read, and the next write there finds the
///   bytes programmed and first copies the file's committed bytes to a fresh page (a higher generation), since a
///   programmed bit cannot be set back to 1. That is the torn tail cut, on flash.
/// - **`truncateFile`**, **`replaceAtomically`**: copies to a fresh page when the bytes cannot stay where they are.
/// - **`removeFile`**: marks the page dead, then erases it. **`synchronizeDirectory`**, **`makeDirectory`**:
///   nothing to do: a header is durable once programmed, and the one directory is the part.
final class FlashFileSystem: FileSystem {
    /// What the driver knows of a file; rebuilt from the part at mounting.
    private struct File {
        var name: String
        var page: Int
        var generation: UInt32
        /// The length in the last length word: what a power cut leaves.
        var committed: Int
        /// The length as written, synchronized or not.
        var written: Int
        /// Bytes from here on have never been programmed since the erase (or were programmed to 0xFF).
        var programmedEnd: Int
        var nextLengthSlot: Int
    }

    let directory: String
    private var files: [File] = []
    /// Pages neither free nor a file's: left by a cut; erased when a page is wanted.
    private var junk: [Int] = []
    private var free: [Int] = []
    private let flash = mcu_flash_memory()!

    /// Mounts the part: reads every page's header, and erases copies a newer generation supersedes.
    init(directory: String) throws(SystemError) {
        self.directory = directory
        for page in 0..<FlashPage.count {
            let state = word(page, 0)
            if state == FlashPage.inUse, let file = readFile(page) {
                if let other = files.firstIndex(where: { $0.name == file.name }) {
                    // The copy a relocation wrote, and the page it was copied from, whose erase was cut.
                    let older = files[other].generation < file.generation ? files[other].page : page
                    if older == files[other].page { files[other] = file }
                    try erase(older)
                    free.append(older)
                } else {
                    files.append(file)
                }
            } else if isErased(page, from: 0, to: FlashPage.bytes) {
                free.append(page)
            } else {
                junk.append(page)
            }
        }
    }

    func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        let name = try fileName(path)
        guard bytes.count <= FlashPage.dataBytes else { throw SystemError(call: "write", path: path, code: EFBIG) }
        if let index = files.firstIndex(where: { $0.name == name }) {
            try relocate(index, keeping: 0, then: bytes)
        } else {
            let page = try takePage(path)
            try writePage(page, name: name, generation: 0, data: bytes, path: path)
            files.append(File(name: name, page: page, generation: 0, committed: bytes.count, written: bytes.count,
                              programmedEnd: bytes.count, nextLengthSlot: bytes.isEmpty ? 0 : 1))
        }
    }

    func makeDirectory(_ path: String) throws(SystemError) {
        guard path == directory else { throw SystemError(call: "mkdir", path: path, code: EPERM) }
    }

    func fileNames(in directory: String) throws(SystemError) -> [String] {
        guard directory == self.directory else { throw SystemError(call: "opendir", path: directory, code: ENOENT) }
        return files.map { $0.name }
    }

    func contents(of path: String) throws(SystemError) -> [UInt8] {
        let file = files[try index(path)]
        let start = file.page * FlashPage.bytes + FlashPage.dataOffset
        return [UInt8](UnsafeBufferPointer(start: flash + start, count: file.written))
    }

    func createFile(_ path: String) throws(SystemError) {
        let name = try fileName(path)
        guard !files.contains(where: { $0.name == name }) else { throw SystemError(call: "open", path: path, code: EEXIST) }
        let page = try takePage(path)
        try writePage(page, name: name, generation: 0, data: [], path: path)
        files.append(File(name: name, page: page, generation: 0, committed: 0, written: 0, programmedEnd: 0,
                          nextLengthSlot: 0))
    }

    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError) {
        let index = try index(path)
        guard !bytes.isEmpty else { return }
        guard bytes.count >= 4, offset >= 0, offset <= files[index].written else {
            throw SystemError(call: "write", path: path, code: EINVAL)
        }
        guard offset + bytes.count <= FlashPage.dataBytes else { throw SystemError(call: "write", path: path, code: ENOSPC) }
        if offset < files[index].programmedEnd { try relocate(index, keeping: offset, then: []) }
        let file = files[index]
        try program(bytes, page: file.page, at: FlashPage.dataOffset + offset, path: path)
        files[index].written = max(file.written, offset + bytes.count)
        files[index].programmedEnd = max(file.programmedEnd, offset + bytes.count)
    }

    func synchronizeFile(_ path: String) throws(SystemError) {
        let index = try index(path)
        let file = files[index]
        guard file.written != file.committed else { return }
        guard file.nextLengthSlot < FlashPage.lengthSlots else {
            try relocate(index, keeping: file.written, then: [])
            return
        }
        try programWord(file.page, FlashPage.lengthsOffset + 4 * file.nextLengthSlot, FlashPage.lengthWord(file.written),
                        path: path)
        files[index].nextLengthSlot += 1
        files[index].committed = file.written
    }

    func synchronizeDirectory(_ path: String) throws(SystemError) {}

    func truncateFile(_ path: String, to length: Int) throws(SystemError) {
        let index = try index(path)
        guard length >= 0, length <= files[index].written else { throw SystemError(call: "truncate", path: path, code: EINVAL) }
        files[index].written = length
        // Bytes past the committed length vanish with a power cut anyway; below it they must go now.
        if length < files[index].committed { try relocate(index, keeping: length, then: []) }
    }

    func removeFile(_ path: String) throws(SystemError) {
        let index = try index(path)
        let page = files[index].page
        files.remove(at: index)
        try retire(page, path: path)
    }

    // MARK: the part

    private func word(_ page: Int, _ offset: Int) -> UInt32 {
        let at = flash + page * FlashPage.bytes + offset
        return UInt32(at[0]) | UInt32(at[1]) << 8 | UInt32(at[2]) << 16 | UInt32(at[3]) << 24
    }

    private func isErased(_ page: Int, from start: Int, to end: Int) -> Bool {
        let base = flash + page * FlashPage.bytes
        for offset in start..<end where base[offset] != 0xFF { return false }
        return true
    }

    /// The file a page in use holds, or nil when its name is not a name (a page this driver did not write).
    private func readFile(_ page: Int) -> File? {
        var nameBytes: [UInt8] = []
        for offset in FlashPage.nameOffset..<FlashPage.nameOffset + FlashPage.nameBytes {
            let byte = flash[page * FlashPage.bytes + offset]
            if byte == 0 { break }
            nameBytes.append(byte)
        }
        guard !nameBytes.isEmpty, let name = String(validating: nameBytes, as: UTF8.self) else { return nil }
        var committed = 0, nextSlot = 0
        for slot in 0..<FlashPage.lengthSlots {
            let value = word(page, FlashPage.lengthsOffset + 4 * slot)
            if value != FlashPage.erased { nextSlot = slot + 1 }
            if let length = FlashPage.length(of: value), length <= FlashPage.dataBytes { committed = length }
        }
        var programmedEnd = FlashPage.dataBytes
        while programmedEnd > 0 && flash[page * FlashPage.bytes + FlashPage.dataOffset + programmedEnd - 1] == 0xFF {
            programmedEnd -= 1
        }
        return File(name: name, page: page, generation: word(page, FlashPage.generationOffset), committed: committed,
                    written: committed, programmedEnd: max(programmedEnd, committed), nextLengthSlot: nextSlot)
    }

    private func erase(_ page: Int) throws(SystemError) {
        guard mcu_flash_erase(UInt32(page)) == 0 else { throw SystemError(call: "flash erase", code: EIO) }
    }

    private func programWord(_ page: Int, _ offset: Int, _ value: UInt32, path: String) throws(SystemError) {
        guard mcu_flash_program(UInt32(page * FlashPage.bytes + offset), value) == 0 else {
            throw SystemError(call: "flash program", path: path, code: EIO)
        }
    }

    /// Programs `bytes` at `offset` in `page`, a word at a time; a word's bytes outside them stay 0xFF.
    private func program(_ bytes: [UInt8], page: Int, at offset: Int, path: String) throws(SystemError) {
        var wordStart = offset & ~3
        while wordStart < offset + bytes.count {
            var value: UInt32 = 0
            for lane in 0..<4 {
                let source = wordStart + lane - offset
                let byte = source >= 0 && source < bytes.count ? bytes[source] : 0xFF
                value |= UInt32(byte) << (8 * UInt32(lane))
            }
            try programWord(page, wordStart, value, path: path)
            wordStart += 4
        }
    }

    /// A free page, erasing one a cut left behind if need be.
    private func takePage(_ path: String) throws(SystemError) -> Int {
        if free.isEmpty, let page = junk.popLast() {
            try erase(page)
            free.append(page)
        }
        guard let page = free.popLast() else { throw SystemError(call: "flash page", path: path, code: ENOSPC) }
        return page
    }

    /// Writes a fresh page: its data, its length word, then its header, the state word last.
    private func writePage(_ page: Int, name: String, generation: UInt32, data: [UInt8], path: String) throws(SystemError) {
        let nameBytes = Array(name.utf8)
        if !data.isEmpty {
            // A short file is padded to a word: the 4-byte rule is the driver's, not its callers'.
            try program(data.count >= 4 ? data : data + [UInt8](repeating: 0xFF, count: 4 - data.count),
                        page: page, at: FlashPage.dataOffset, path: path)
            try programWord(page, FlashPage.lengthsOffset, FlashPage.lengthWord(data.count), path: path)
        }
        try programWord(page, FlashPage.generationOffset, generation, path: path)
        try program(nameBytes + [UInt8](repeating: 0, count: FlashPage.nameBytes - nameBytes.count), page: page,
                    at: FlashPage.nameOffset, path: path)
        try programWord(page, 0, FlashPage.inUse, path: path)
    }

    /// Moves file `index` to a fresh page with the next generation: its first `keeping` bytes, then `then`,
    /// committed; the old page is retired once the new one is whole.
    private func relocate(_ index: Int, keeping: Int, then more: [UInt8]) throws(SystemError) {
        let file = files[index]
        let path = directory + "/" + file.name
        let start = file.page * FlashPage.bytes + FlashPage.dataOffset
        let data = [UInt8](UnsafeBufferPointer(start: flash + start, count: keeping)) + more
        let page = try takePage(path)
        try writePage(page, name: file.name, generation: file.generation &+ 1, data: data, path: path)
        files[index] = File(name: file.name, page: page, generation: file.generation &+ 1, committed: data.count,
                            written: data.count, programmedEnd: data.count, nextLengthSlot: data.isEmpty ? 0 : 1)
        try retire(file.page, path: path)
    }

    /// Marks a page dead (so a cut during its erase cannot bring the file back), erases it, frees it.
    private func retire(_ page: Int, path: String) throws(SystemError) {
        try programWord(page, 0, FlashPage.dead, path: path)
        try erase(page)
        free.insert(page, at: 0)
    }

    private func fileName(_ path: String) throws(SystemError) -> String {
        let prefix = directory + "/"
        guard path.hasPrefix(prefix) else { throw SystemError(call: "open", path: path, code: ENOENT) }
        let name = String(path.dropFirst(prefix.count))
        guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: "/")) else { throw SystemError(call: "open", path: path, code: ENOENT) }
        guard name.utf8.count <= FlashPage.nameBytes else { throw SystemError(call: "open", path: path, code: ENAMETOOLONG) }
        return name
    }

    private func index(_ path: String) throws(SystemError) -> Int {
        let name = try fileName(path)
        guard let index = files.firstIndex(where: { $0.name == name }) else {
            throw SystemError(call: "open", path: path, code: ENOENT)
        }
        return index
    }
}
