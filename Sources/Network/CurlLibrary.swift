import CCurl
#if canImport(Glibc)
import Glibc
#endif

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

    private let handle: UnsafeMutableRawPointer
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
        guard let handle = Self.open() else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw .transport("cannot load \(Self.soname) (install libcurl4): \(reason)")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(HTTPClient.Failure) -> T {
            guard let address = dlsym(handle, name) else {
                dlclose(handle)
                throw .transport("\(Self.soname) has no \(name)")
            }
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
        self.handle = handle
        // Single-threaded agent: global init and cleanup pair up with this object's life.
        guard globalInit(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else {
            dlclose(handle)
            throw .transport("libcurl could not be initialised")
        }
    }

    deinit {
        globalCleanup()
        dlclose(handle)
    }

    /// dlopen, with GnuTLS's implicit initialisation turned off for the duration. Debian's libcurl4 does its TLS
    /// with OpenSSL, but drags in GnuTLS through librtmp and libldap, whose load-time constructor initialises
    /// it anyway (~0.7 MB resident, for protocols the transfers never allow). The variable is GnuTLS's
    /// documented switch; it is set only around the call, so no spawned command inherits it.
    private static func open() -> UnsafeMutableRawPointer? {
        let variable = "GNUTLS_NO_IMPLICIT_INIT"
        let wasSet = getenv(variable) != nil
        if !wasSet { setenv(variable, "1", 0) }
        defer { if !wasSet { unsetenv(variable) } }
        return dlopen(soname, RTLD_NOW | RTLD_LOCAL)
    }

    /// Whether libcurl is mapped into this process now (for tests and `status`).
    static var isLoaded: Bool {
        guard let probe = dlopen(soname, RTLD_NOW | RTLD_NOLOAD) else { return false }
        dlclose(probe)
        return true
    }
}
