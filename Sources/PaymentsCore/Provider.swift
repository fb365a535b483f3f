/// The four providers PayQL speaks to.
public enum ProviderName: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case razorpay
    case cashfree
    case instamojo
    case setu

    public var description: String { rawValue }
}
