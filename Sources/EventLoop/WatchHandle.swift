/// Names one file-descriptor watch so that its interest can be changed or the watch removed.
///
/// A watch is identified by this handle, not by the descriptor number: after a service closes a
/// descriptor and the kernel hands the same number to a new one, the old handle still refers to
/// the old (now removed) watch and can never trigger the new one.
public struct WatchHandle: Hashable, Sendable {
    let id: UInt64
    init(id: UInt64) { self.id = id }
}
