/// One key press, decoded from the bytes a terminal sends.
enum TerminalKey: Hashable, Sendable {
    /// A printable character (one Unicode scalar; combining marks arrive as their own scalars).
    case text(Unicode.Scalar)
    /// Enter: CR, LF, or CR LF counted once.
    case enter
    /// A C0 control character other than CR and LF (Ctrl-A is 0x01), or DEL (0x7F, the usual backspace).
    case control(UInt8)
    case up, down, left, right, home, end, delete
    case wordLeft, wordRight, deleteWordBackward
}
