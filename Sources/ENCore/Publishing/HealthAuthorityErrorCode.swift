/// The error codes the verification server (`errorCode`) and the key server (`code`) answer with
/// (PUBLISH.md §2–3), each with what it means for the member of staff who entered the code.
/// (`partial_failure` is not here: the keys that were not dropped are stored, so it is a success.)
public enum HealthAuthorityErrorCode: String, CaseIterable, Sendable {
    // Verification server, /api/verify
    case unparsableRequest = "unparsable_request"
    case codeInvalid = "code_invalid"
    case codeExpired = "code_expired"
    case invalidTestType = "invalid_test_type"
    case unsupportedTestType = "unsupported_test_type"
    case maintenanceMode = "maintenance_mode"
    case internalServerError = "internal_server_error"
    // Verification server, /api/certificate
    case tokenInvalid = "token_invalid"
    case tokenExpired = "token_expired"
    case hmacInvalid = "hmac_invalid"
    // Key server, /v1/publish
    case unknownHealthAuthorityID = "unknown_health_authority_id"
    case certificateInvalid = "health_authority_verification_certificate_invalid"
    case badRequest = "bad_request"
    case missingRevisionToken = "missing_revision_token"
    case invalidRevisionToken = "invalid_revision_token"
    case keyAlreadyRevised = "key_already_revised"
    case invalidReportTypeTransition = "invalid_report_type_transition"
    case unableToLoadHealthAuthority = "unable_to_load_health_authority"
    case healthAuthorityMissingRegionConfig = "health_authority_missing_region_config"
    case internalError = "internal_error"

    public var disposition: HealthAuthorityError.Disposition {
        switch self {
        case .codeInvalid, .codeExpired, .unsupportedTestType, .tokenInvalid, .tokenExpired, .certificateInvalid:
            .newCodeNeeded
        case .maintenanceMode, .internalServerError, .internalError, .unableToLoadHealthAuthority,
             .healthAuthorityMissingRegionConfig:
            .retryLater
        case .unknownHealthAuthorityID:
            .checkConfiguration
        case .unparsableRequest, .invalidTestType, .hmacInvalid, .badRequest, .missingRevisionToken,
             .invalidRevisionToken, .keyAlreadyRevised, .invalidReportTypeTransition:
            .badgeFault
        }
    }

    /// What happened and what to do, for staff.
    public var message: String {
        switch self {
        case .codeInvalid:
            "the health authority does not know this code, or it was already used: check the code, or ask "
                + "the health authority for a new one"
        case .codeExpired:
            "this code has expired: ask the health authority for a new one"
        case .unsupportedTestType:
            "this code is for a kind of test result the badge does not share: ask the health authority "
                + "whether it is the right code"
        case .tokenInvalid:
            "the health authority no longer accepts this code's verification: ask the health authority for "
                + "a new code"
        case .tokenExpired:
            "this code's verification has expired or was already used: ask the health authority for a new code"
        case .certificateInvalid:
            "the key server refused the health authority's certificate, so no keys were shared: check "
                + "share.health_authority_id and share.publish_url, then ask the health authority for a new code"
        case .maintenanceMode:
            "the health authority's server is in maintenance: the badge will try again later"
        case .internalServerError:
            "the health authority's verification server had an internal error: the badge will try again"
        case .internalError:
            "the key server had an internal error: the badge will try again"
        case .unableToLoadHealthAuthority, .healthAuthorityMissingRegionConfig:
            "the key server is not set up for this health authority (\(rawValue)): tell the health "
                + "authority; the badge will try again"
        case .unknownHealthAuthorityID:
            "the key server does not know this health authority: check share.health_authority_id"
        case .unparsableRequest, .invalidTestType, .hmacInvalid, .badRequest:
            "the server did not accept the badge's request (\(rawValue)): the badge's software needs "
                + "fixing; report this to its maintainer"
        case .missingRevisionToken, .invalidRevisionToken, .keyAlreadyRevised, .invalidReportTypeTransition:
            "the key server already holds some of these keys and refused to change them (\(rawValue)): "
                + "report this to the badge's maintainer"
        }
    }
}
