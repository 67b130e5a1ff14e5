@testable import Network
import Testing

/// Where the HTTP client lets a redirect go: the origin of the URL it was asked for, and nowhere else.
@Suite struct URLOriginTests {
    @Test func redirectsStayWithinTheirOrigin() {
        let origin = URLOrigin("https://keys.example/v1/index.txt")
        #expect(origin == URLOrigin("HTTPS://Keys.Example:443/other?x=1"))
        #expect(origin == URLOrigin("https://user@keys.example/x"))
        #expect(origin != URLOrigin("http://keys.example/v1/index.txt"), "no change of scheme")
        #expect(origin != URLOrigin("https://keys.example:8443/v1/index.txt"), "no other port")
        #expect(origin != URLOrigin("https://evil.example/v1/index.txt"))
        #expect(origin != URLOrigin("https://keys.example.evil.example/"))
        #expect(URLOrigin("file:///etc/passwd")?.scheme == "file")
        #expect(URLOrigin("http://[::1]:8080/a") == URLOrigin("http://[::1]:8080"))
        #expect(URLOrigin("http://127.0.0.1/") == URLOrigin("http://127.0.0.1:80/"))
        #expect(URLOrigin("no scheme") == nil && URLOrigin("http://h:99999/") == nil)
    }
}
