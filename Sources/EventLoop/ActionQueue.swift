/// The order in which a driver performs a state machine's actions (`SyncMachine`'s, `ShareMachine`'s): as
/// given, with the machine's answer to an action the driver answers on the spot put next in line. A loop, not
/// recursion, so that a long run of such answers (entries skipped one after another) never nests calls.
public enum ActionQueue {
    /// Performs `actions` with `execute`, which returns the machine's answer to one it could answer at once.
    public static func perform<Action>(_ actions: [Action], _ execute: (Action) -> [Action]) {
        var queue = actions
        var next = 0
        while next < queue.count {
            let answer = execute(queue[next])
            next += 1
            queue.insert(contentsOf: answer, at: next)
        }
    }
}
