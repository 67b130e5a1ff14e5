import HCI
import Testing

// MARK: - A small universe of states and goals

/// Three addresses and three payloads are enough to reach every branch of the plan: "same as the
/// goal", "different from the goal" and "never set" for both the address and the data.
private let planAddresses: [BDAddress?] = [nil] + (1...3).map { BDAddress(rawValue: 0x10_00_00_00_00_00 + UInt64($0)) }
private let planData: [[UInt8]?] = [nil] + (1...3).map { [0x02, 0x01, UInt8($0)] }

/// Every combination of the six fields over the universe: a superset of the states the driver can
/// reach (it also holds states only a confused host could produce, such as advertising without data).
private let everyState: [RadioState] = {
    var states: [RadioState] = []
    for address in planAddresses {
        for data in planData {
            for bits in 0..<16 {
                var s = RadioState()
                s.randomAddress = address
                s.advertisingData = data
                s.advertisingParametersSet = bits & 1 != 0
                s.scanParametersSet = bits & 2 != 0
                s.advertising = bits & 4 != 0
                s.scanning = bits & 8 != 0
                states.append(s)
            }
        }
    }
    return states
}()

/// Every goal over the universe: no broadcast, or any (address, data) pair; scanning or not.
private let everyGoal: [RadioGoal] = {
    var broadcasts: [RadioGoal.Broadcast?] = [nil]
    for address in planAddresses.compactMap({ $0 }) {
        for data in planData.compactMap({ $0 }) { broadcasts.append(RadioGoal.Broadcast(address: address, data: data)) }
    }
    return broadcasts.flatMap { b in [false, true].map { RadioGoal(broadcast: b, scanning: $0) } }
}()

/// The longest plan there is: stop scanning, stop advertising, address, data, parameters, enable,
/// scan parameters, enable scanning.
private let longestPlan = 8

/// The strict controller's rules and GAEN's privacy rule, as a check on one step from one state.
/// Returns what is wrong, or nil.
private func ruleBroken(by step: RadioStep, in s: RadioState, toward goal: RadioGoal) -> String? {
    switch step {
    case .setRandomAddress:
        if s.advertising || s.scanning { return "Set Random Address while advertising or scanning" }
    case .setAdvertisingParameters:
        if s.advertising { return "Set Advertising Parameters while advertising" }
    case .setScanParameters:
        if s.scanning { return "Set Scan Parameters while scanning" }
    case .setAdvertisingData:
        // Allowed by the controller, but the next advertising event would carry a new RPI under the
        // old address: two RPIs linked by one address.
        if s.advertising { return "Set Advertising Data while advertising" }
    case .enableAdvertising:
        // A strict controller refuses a random own address that was never set; and what goes on
        // air must be exactly the goal's pair, never an old address with new data or the reverse.
        guard let b = goal.broadcast else { return "advertising enabled without a broadcast goal" }
        if s.randomAddress != b.address || s.advertisingData != b.data || !s.advertisingParametersSet {
            return "advertising enabled before address, data and parameters match the goal"
        }
    case .enableScanning:
        if !s.scanParametersSet || !goal.scanning { return "scanning enabled without parameters or goal" }
    case .disableScanning, .disableAdvertising:
        break
    }
    return nil
}

/// Whether `s` is exactly what `goal` asks for, on the fields the goal speaks about.
private func satisfies(_ s: RadioState, _ goal: RadioGoal) -> Bool {
    let broadcastOK = goal.broadcast.map { s.isBroadcasting($0) && s.advertisingParametersSet } ?? !s.advertising
    return broadcastOK && s.scanning == goal.scanning
}

/// Follows the plan from `start` toward `goal`: the steps taken, or nil if it did not settle within
/// `limit` steps. Every step is checked against the rules.
private func follow(from start: RadioState, to goal: RadioGoal, limit: Int = longestPlan + 4,
                    sourceLocation: SourceLocation = #_sourceLocation) -> (steps: [RadioStep], end: RadioState)? {
    var s = start
    var steps: [RadioStep] = []
    while let step = RadioPlan.nextStep(from: s, to: goal) {
        if let broken = ruleBroken(by: step, in: s, toward: goal) {
            Issue.record("\(broken): \(step) from \(s) toward \(goal)", sourceLocation: sourceLocation)
            return nil
        }
        let next = step.applied(to: s)
        // A step that changes nothing would be sent again and again.
        if next == s {
            Issue.record("\(step) makes no progress from \(s)", sourceLocation: sourceLocation)
            return nil
        }
        s = next
        steps.append(step)
        if steps.count > limit { return nil }
    }
    return (steps, s)
}

@Suite("Radio plan")
struct RadioPlanTests {
    // MARK: exhaustive

    @Test("from every state toward every goal: obeys the strict rules and settles on the goal within 8 steps")
    func everyStateEveryGoal() throws {
        #expect(everyState.count == 256)
        #expect(everyGoal.count == 20)
        var longest = 0
        for start in everyState {
            for goal in everyGoal {
                let (steps, end) = try #require(follow(from: start, to: goal), "no convergence from \(start) toward \(goal)")
                #expect(steps.count <= longestPlan)
                #expect(satisfies(end, goal), "plan stopped at \(end), short of \(goal)")
                longest = max(longest, steps.count)
            }
        }
        // The bound is tight: the worst case really needs every kind of step.
        #expect(longest == longestPlan)
    }

    @Test("the states the driver can reach are all in the exhaustive universe, and the plan converges from each")
    func reachableStates() throws {
        // Breadth-first over "any goal's next step" from the power-on state: everything a driver can
        // be in, whatever sequence of goal changes interrupts it.
        var reachable: Set<RadioStateKey> = [RadioStateKey(RadioState())]
        var frontier = [RadioState()]
        while let s = frontier.popLast() {
            for goal in everyGoal {
                guard let step = RadioPlan.nextStep(from: s, to: goal) else { continue }
                let next = step.applied(to: s)
                if reachable.insert(RadioStateKey(next)).inserted { frontier.append(next) }
            }
        }
        let universe = Set(everyState.map(RadioStateKey.init))
        #expect(reachable.isSubset(of: universe))
        // Not trivially everything: e.g. advertising without data or parameters is unreachable.
        #expect(reachable.count < universe.count)
        #expect(!reachable.contains { $0.state.advertising && $0.state.advertisingData == nil })
        for key in reachable {
            for goal in everyGoal {
                let (steps, end) = try #require(follow(from: key.state, to: goal))
                #expect(steps.count <= longestPlan)
                #expect(satisfies(end, goal))
            }
        }
    }

    // MARK: random goal changes mid-plan

    @Test("random goal changes part-way through: rules hold at every step, no address carries two payloads, and the last goal is reached",
          arguments: [1, 2, 3] as [UInt64])
    func randomInterruptions(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var s = RadioState()
        var goal = RadioGoal()
        var serial: UInt64 = 0
        // What has been on air: the GAEN rule is one payload per address and one address per payload.
        var dataOnAir: [BDAddress: Set<[UInt8]>] = [:]
        var addressesOnAir: [[UInt8]: Set<BDAddress>] = [:]

        for _ in 0..<5_000 {
            // A new goal the way GAENRadio makes them: a fresh address with every fresh payload.
            switch Int.random(in: 0..<10, using: &random) {
            case 0: goal.broadcast = nil
            case 1, 2: goal.scanning.toggle()
            default:
                serial += 1
                goal.broadcast = RadioGoal.Broadcast(
                    address: BDAddress(rawValue: 0x20_00_00_00_00_00 + serial),
                    data: [0x03, 0x03, 0x6F, 0xFD, UInt8(truncatingIfNeeded: serial), UInt8(truncatingIfNeeded: serial >> 8)])
            }
            // Apply a random number of steps (often fewer than the plan needs) before the next change.
            for _ in 0..<Int.random(in: 0...longestPlan, using: &random) {
                guard let step = RadioPlan.nextStep(from: s, to: goal) else { break }
                if let broken = ruleBroken(by: step, in: s, toward: goal) {
                    Issue.record("\(broken): \(step) from \(s)")
                    return
                }
                s = step.applied(to: s)
                if s.advertising, let address = s.randomAddress, let data = s.advertisingData {
                    dataOnAir[address, default: []].insert(data)
                    addressesOnAir[data, default: []].insert(address)
                }
            }
        }
        let (steps, end) = try #require(follow(from: s, to: goal))
        #expect(steps.count <= longestPlan)
        #expect(satisfies(end, goal))
        #expect(dataOnAir.values.allSatisfy { $0.count == 1 }, "an address carried two payloads")
        #expect(addressesOnAir.values.allSatisfy { $0.count == 1 }, "a payload went out under two addresses")
        #expect(dataOnAir.count > 100, "the walk put too few broadcasts on air to mean anything")
    }

    // MARK: the sequences that matter, spelled out

    @Test("from power-on: address, data, parameters, enable; then scan parameters and scan")
    func fromPowerOn() throws {
        let a = try #require(planAddresses[1]), d = try #require(planData[1])
        let goal = RadioGoal(broadcast: .init(address: a, data: d), scanning: true)
        let (steps, _) = try #require(follow(from: RadioState(), to: goal))
        #expect(steps == [.setRandomAddress(a), .setAdvertisingData(d), .setAdvertisingParameters, .enableAdvertising,
                          .setScanParameters, .enableScanning])
    }

    @Test("a rotation while advertising and scanning stops both, changes address and data, and resumes without re-sending parameters")
    func rotationDuringScan() throws {
        let (a1, a2) = (try #require(planAddresses[1]), try #require(planAddresses[2]))
        let (d1, d2) = (try #require(planData[1]), try #require(planData[2]))
        let first = RadioGoal(broadcast: .init(address: a1, data: d1), scanning: true)
        let (_, onAir) = try #require(follow(from: RadioState(), to: first))
        let second = RadioGoal(broadcast: .init(address: a2, data: d2), scanning: true)
        let (steps, end) = try #require(follow(from: onAir, to: second))
        #expect(steps == [.disableScanning, .disableAdvertising, .setRandomAddress(a2), .setAdvertisingData(d2),
                          .enableAdvertising, .enableScanning])
        #expect(end.isBroadcasting(second.broadcast!) && end.scanning)
    }

    @Test("stopping: no broadcast turns advertising off only; no scan turns scanning off only")
    func stopping() throws {
        let a = try #require(planAddresses[1]), d = try #require(planData[1])
        let full = RadioGoal(broadcast: .init(address: a, data: d), scanning: true)
        let (_, onAir) = try #require(follow(from: RadioState(), to: full))
        #expect(try #require(follow(from: onAir, to: RadioGoal(broadcast: nil, scanning: true))).steps == [.disableAdvertising])
        #expect(try #require(follow(from: onAir, to: RadioGoal(broadcast: full.broadcast, scanning: false))).steps
                == [.disableScanning])
        #expect(RadioPlan.nextStep(from: onAir, to: full) == nil)
        #expect(RadioPlan.nextStep(from: RadioState(), to: RadioGoal()) == nil)
    }

    @Test("scanning alone needs no address")
    func scanOnly() throws {
        let (steps, _) = try #require(follow(from: RadioState(), to: RadioGoal(broadcast: nil, scanning: true)))
        #expect(steps == [.setScanParameters, .enableScanning])
    }
}

/// `RadioState` is Equatable but not Hashable; the reachability search wants a set.
private struct RadioStateKey: Hashable {
    let state: RadioState
    init(_ state: RadioState) { self.state = state }
    static func == (a: Self, b: Self) -> Bool { a.state == b.state }
    func hash(into hasher: inout Hasher) {
        hasher.combine(state.randomAddress)
        hasher.combine(state.advertisingData)
        hasher.combine(state.advertisingParametersSet)
        hasher.combine(state.scanParametersSet)
        hasher.combine(state.advertising)
        hasher.combine(state.scanning)
    }
}
