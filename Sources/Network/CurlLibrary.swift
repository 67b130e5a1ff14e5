import CCurl
import SystemIO

/// libcurl, loaded with dlopen for as long as transfers (downloads, a key share's requests) are under way.
///
/// Linked at start-up, libcurl and what it pulls in (GnuTLS, Kerberos, LDAP, SSH, …) cost about 6 MB of
/// resident memory for the badge's whole life, to download a few files every four hours. Loaded on
/// demand and closed when idle (`HTTPClient` decides when), they cost nothing between syncs.
final class CurlLibrary {
    typealias GlobalInit = @convention(c) (Int) -> CURLcode
    typealias GlobalCleanup = @convention(c) () -> Void
    typealias MultiInit = @convention(c) () -> UnsafeMutableRawPointer?
    typealias MultiCleanup = @convention(c) (UnsafeMutableRawPointer?) -> CURLMcode
    typealias MultiHandle = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> CURLMcode
    typealias MultiSocketAction = @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, Int32,
                                                  UnsafeMutablePointer<Int32>?) -> CURLMcode
    typealias MultiInfoRead = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?)
        -> UnsafeMutablePointer<CURLMsg>?
    typealias EasyInit = @convention(c) () -> UnsafeMutableRawPointer?
    typealias EasyCleanup = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias EasyStrerror = @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    typealias SlistAppend = @convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?)
        -> UnsafeMutablePointer<curl_slist>?
    typealias SlistFreeAll = @convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void

    static let soname = "libcurl.so.4"

    /// Kept for this object's life: released after `deinit` has run `globalCleanup`, which unmaps libcurl.
    private let library: DynamicLibrary
    let globalCleanup: GlobalCleanup
    let multiInit: MultiInit
    let multiCleanup: MultiCleanup
    let multiAddHandle: MultiHandle
    let multiRemoveHandle: MultiHandle
    let multiSocketAction: MultiSocketAction
    let multiInfoRead: MultiInfoRead
    let multiSetopt: enb_curl_multi_setopt_fn
    let easyInit: EasyInit
    let easyCleanup: EasyCleanup
    let easySetopt: enb_curl_easy_setopt_fn
    let easyGetinfo: enb_curl_easy_getinfo_fn
    let easyStrerror: EasyStrerror
    /// A POST's request headers are a `curl_slist`, built and freed through these.
    let slistAppend: SlistAppend
    let slistFreeAll: SlistFreeAll

    /// Loads and initialises libcurl; the error names what is missing (`apt install libcurl4`).
    init() throws(HTTPClient.Failure) {
        let library: DynamicLibrary
        do { library = try Self.open() } catch {
            throw .transport("cannot load \(Self.soname) (install libcurl4): \(error.reason)")
        }
        // A throw below lets `library` go, which unmaps libcurl again.
        func symbol<T>(_ name: String, as type: T.Type) throws(HTTPClient.Failure) -> T {
            guard let address = library.symbol(name) else { throw .transport("\(Self.soname) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let globalInit = try symbol("curl_global_init", as: GlobalInit.self)
        globalCleanup = try symbol("curl_global_cleanup", as: GlobalCleanup.self)
        multiInit = try symbol("curl_multi_init", as: MultiInit.self)
        multiCleanup = try symbol("curl_multi_cleanup", as: MultiCleanup.self)
        multiAddHandle = try symbol("curl_multi_add_handle", as: MultiHandle.self)
        multiRemoveHandle = try symbol("curl_multi_remove_handle", as: MultiHandle.self)
        multiSocketAction = try symbol("curl_multi_socket_action", as: MultiSocketAction.self)
        multiInfoRead = try symbol("curl_multi_info_read", as: MultiInfoRead.self)
        multiSetopt = try symbol("curl_multi_setopt", as: enb_curl_multi_setopt_fn.self)
        easyInit = try symbol("curl_easy_init", as: EasyInit.self)
        easyCleanup = try symbol("curl_easy_cleanup", as: EasyCleanup.self)
        easySetopt = try symbol("curl_easy_setopt", as: enb_curl_easy_setopt_fn.self)
        easyGetinfo = try symbol("curl_easy_getinfo", as: enb_curl_easy_getinfo_fn.self)
        easyStrerror = try symbol("curl_easy_strerror", as: EasyStrerror.self)
        slistAppend = try symbol("curl_slist_append", as: SlistAppend.self)
        slistFreeAll = try symbol("curl_slist_free_all", as: SlistFreeAll.self)
        // Single-threaded agent: global init and cleanup pair up with this object's life. Initialised before
        // `library` is stored, so a failure here unmaps libcurl without running `deinit`'s cleanup.
        guard globalInit(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else {
            throw .transport("libcurl could not be initialised")
        }
        self.library = library
    }

    deinit { globalCleanup() }

    /// dlopen, with GnuTLS's implicit initialisation turned off for the duration. Debian's libcurl4 does its TLS
    /// with OpenSSL, but drags in GnuTLS through librtmp and libldap, whose load-time constructor initialises
    /// it anyway (~0.7 MB resident, for protocols the transfers never allow). The variable is GnuTLS's
    /// documented switch; it is set only around the call, so no spawned command inherits it.
    private static func open() throws(DynamicLibrary.LoadFailure) -> DynamicLibrary {
        let variable = "GNUTLS_NO_IMPLICIT_INIT"
        let wasSet = Posix.environment(variable) != nil
        if !wasSet { Posix.setEnvironment(variable, to: "1") }
        defer { if !wasSet { Posix.removeEnvironment(variable) } }
        return try DynamicLibrary(soname)
    }

    /// Whether libcurl is mapped into this process now (for tests and `status`).
    static var isLoaded: Bool { DynamicLibrary.isLoaded(soname) }
}
