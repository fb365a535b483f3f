public import PaymentsCore
/// The payment options of an Instamojo gateway order, for a custom checkout UI.
/// (PayQL never sees a card number: card entry stays in the provider SDK.)
public struct PaymentOptions: Sendable, Hashable {
    /// A bank or wallet the customer can pick.
    public struct Choice: Sendable, Hashable {
        /// The identifier, as the provider writes it.
        public var id: String
        /// Display name.
        public var name: String
        /// Logo URL, when the provider gives one.
        public var imageURL: String?
    }
    /// One EMI plan: months and yearly interest rate (percent, exact decimal text).
    public struct EMIPlan: Sendable, Hashable {
        /// Instalment count (months).
        public var tenureMonths: Int
        /// Yearly interest rate in percent, as exact decimal text.
        public var interestRatePercent: String
    }
    /// A bank offering EMI, with its plans.
    public struct EMIBank: Sendable, Hashable {
        /// The provider's code.
        public var code: String
        /// Display name.
        public var name: String
        /// Available tenures and rates.
        public var plans: [EMIPlan]
    }

    /// Whether cards are offered.
    public var cards: Bool
    /// Netbanking banks.
    public var netbankingBanks: [Choice]
    /// EMI banks with tenure and rate.
    public var emiBanks: [EMIBank]
    /// Wallets.
    public var wallets: [Choice]
    /// Whether UPI collect is offered.
    public var upi: Bool
    /// Where the netbanking form is posted (`netbanking_options.submission_url`), when given.
    public var netbankingSubmissionURL: String?
    /// Where the wallet form is posted (`wallet_options.submission_url`), when given.
    public var walletSubmissionURL: String?
}

/// A UPI collect request sent to a customer's VPA, or its later status.
public struct UPICollect: Sendable, Hashable {
    /// Instamojo's payment id for the collect.
    public var paymentID: String
    /// `pending` until the customer approves in the UPI app.
    public var status: PaymentStatus
    /// The provider's status code, as text.
    public var rawStatus: String
    /// The provider's message, if any.
    public var message: String?
    /// Where to poll the status (kept so a later poll goes to the same place).
    public var statusURL: String?

    /// A collect as stored by the caller, to poll it again later (``InstamojoAdapter/upiCollectStatus(_:)``).
    public init(paymentID: String, status: PaymentStatus, rawStatus: String, message: String? = nil, statusURL: String?) {
        self.paymentID = paymentID
        self.status = status
        self.rawStatus = rawStatus
        self.message = message
        self.statusURL = statusURL
    }
}

/// Instamojo's three-letter refund reason codes (docs/providers/instamojo.md §3) [M].
public enum InstamojoRefundReason: String, Sendable, CaseIterable {
    /// Duplicate or delayed payment.
    case duplicatePayment = "RFD"
    /// Product or service no longer available.
    case unavailable = "TNR"
    /// Customer not satisfied.
    case notSatisfied = "QFL"
    /// Product lost or damaged.
    case lostOrDamaged = "QNR"
    /// Digital download problem.
    case downloadProblem = "EWN"
    /// Event cancelled or changed.
    case eventCancelled = "TAN"
    /// Any other problem.
    case other = "PTH"
}
