/// Why typed text is not a verification code. The messages never repeat the code.
public enum VerificationCodeError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case notLettersAndDigits
    case length(Int)

    public var description: String {
        switch self {
        case .empty:
            "no code given: type the code the health authority gave"
        case .notLettersAndDigits:
            "a verification code has only letters and digits: check what was typed"
        case .length(let count):
            "a verification code has \(VerificationCode.lengthRange.lowerBound) to "
                + "\(VerificationCode.lengthRange.upperBound) letters and digits, this one has \(count): check it"
        }
    }
}
