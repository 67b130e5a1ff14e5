import Testing
@testable import EventLoop

struct DurationTextTests {
    @Test(arguments: [
        (Duration.zero, "0 ms"), (.milliseconds(250), "250 ms"), (.milliseconds(999), "999 ms"),
        (.seconds(1), "1 s"), (.milliseconds(1_500), "1.5 s"), (.milliseconds(1_549), "1.5 s"), (.seconds(30), "30 s"),
        (.milliseconds(59_900), "59.9 s"), (.seconds(60), "1 min"), (.seconds(792), "13 min 12 s"),
        (.seconds(3_600), "1 h"), (.seconds(7_500), "2 h 5 min"), (.seconds(14 * 86_400), "336 h"),
        (.seconds(-30), "-30 s"), (.seconds(Int64.max), "2562047 h 47 min"),
    ])
    func readsAsAPersonWouldSayIt(duration: Duration, text: String) {
        #expect(duration.humanReadable == text)
    }
}
