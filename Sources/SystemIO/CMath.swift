import CLinux

/// The few functions of the C maths library the simulation needs (the Swift standard library has no
/// logarithms or trigonometry without Foundation, and the board build has only libm).
public enum CMath {
    public static func log10(_ x: Double) -> Double { CLinux.log10(x) }
    public static func cos(_ x: Double) -> Double { CLinux.cos(x) }
    public static func sin(_ x: Double) -> Double { CLinux.sin(x) }
}
