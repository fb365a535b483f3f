public import PaymentsCore
import Support
/// A payment mode as Setu's payment-event API spells it (docs/providers/setu.md §4.2).
public enum SetuPaymentMode: String, Sendable, Hashable, CaseIterable {
    case internetBanking = "INTERNET BANKING"
    case debitCard = "DEBIT CARD"
    case creditCard = "CREDIT CARD"
    case prepaidCard = "PREPAID CARD"
    case imps = "IMPS"
    case cash = "CASH"
    case upi = "UPI"
    case wallet = "WALLET"
    case neft = "NEFT"
    case aeps = "AEPS"
    case accountTransfer = "ACCOUNT TRANSFER"
    case bharatQR = "BHARAT QR"
    case ussd = "USSD"

    /// Reads a mode as it appears in `allowedPaymentModes`, case-insensitively.
    /// `NETBANKING` (the docs' own example, not an enum value) means `INTERNET BANKING`;
    /// the docs sample also spells `Bharat QR`.
    public init?(lenient text: String) {
        let upper = text.trimmingSpaces().uppercased()
        switch upper {
        case "NETBANKING", "NET BANKING": self = .internetBanking
        default:
            guard let mode = SetuPaymentMode(rawValue: upper) else { return nil }
            self = mode
        }
    }
}

/// What the merchant asks for when creating a bill-pay link.
public struct SetuBillPayLinkRequest: Sendable {
    /// `mobileNumber`, 6–22 digits.
    public var mobileNumber: String
    /// `custID`: the merchant's customer id.
    public var customerID: String?
    /// `categoryName`: opens that category.
    public var category: String?
    /// `billerId`: with a category, opens the bill-fetch form.
    public var billerID: String?
    /// `billParams`: with a biller, shows the bill directly (names are the biller's display names).
    public var billParameters: [(name: String, value: String)]
    /// `additionalInfo`: session metadata.
    public var additionalInfo: [String: String]
    /// `redirectTo`: `transactions` or `disputes`.
    public var redirectTo: String?

    /// Creates the value from its fields.
    public init(mobileNumber: String, customerID: String? = nil, category: String? = nil, billerID: String? = nil,
                billParameters: [(name: String, value: String)] = [], additionalInfo: [String: String] = [:],
                redirectTo: String? = nil) {
        self.mobileNumber = mobileNumber
        self.customerID = customerID
        self.category = category
        self.billerID = billerID
        self.billParameters = billParameters
        self.additionalInfo = additionalInfo
        self.redirectTo = redirectTo
    }
}

/// A single-use bill-pay link (create a new one each time the customer enters).
public struct SetuBillPayLink: Sendable, Hashable {
    /// The URL to open in the webview or browser.
    public var link: String
    /// Setu's session id for the link.
    public var sessionID: String?
    /// A short form of the link, when asked for.
    public var shortLink: String?
    /// Setu's trace id, to quote to their support.
    public var traceID: String?
}

/// The `initiate_payment` data Setu's screens hand to the app, normalised:
/// deprecated names mapped to current ones.
public struct SetuPaymentInitiation: Sendable, Hashable {
    /// Setu's order id (`COUWL…`).
    public var orderID: String
    /// The amount, exact in minor units.
    public var amount: Amount
    /// Reload the webview here after the payment.
    public var postPaymentURL: String
    /// The customer's mobile number.
    public var customerMobileNumber: String
    /// The merchant's customer id, when sent.
    public var customerID: String?
    /// Modes the payment must use; empty means any.
    public var allowedPaymentModes: [SetuPaymentMode]
    /// Modes in `allowedPaymentModes` that PayQL does not know (kept, not dropped silently).
    public var unrecognisedPaymentModes: [String]
    /// Deprecated `beneficiaryVPA`, when sent.
    public var beneficiaryVPA: String?
    /// Deprecated `remarks`, when sent.
    public var remarks: String?
    /// Deprecated `refId`, when sent (audit only: never an order id).
    public var refID: String?
    /// Which deprecated names the data used (for a deprecation log line).
    public var deprecatedNamesUsed: [String]
}

/// The outcome PayQL reports back to Setu for an order (payment-event).
public struct SetuPaymentConfirmation: Sendable {
    /// What happened to the payment.
    public enum Outcome: Sendable, Hashable {
        case success
        case failure(code: String, message: String)
    }

    /// The order this belongs to (provider id).
    public var orderID: String
    /// The merchant's unique payment reference (PG payment id or UTR).
    public var transactionID: String
    /// When the payment happened, unix seconds (sent as `YYYY-MM-DD HH:MM:SS` UTC).
    public var paidAt: Int64
    /// The amount, exact in minor units.
    public var amount: Amount
    /// How the customer paid.
    public var mode: SetuPaymentMode
    /// Success, or failure with a code and message.
    public var outcome: Outcome
    /// Free text for Setu, optional.
    public var remarks: String?

    /// Creates the value from its fields.
    public init(orderID: String, transactionID: String, paidAt: Int64, amount: Amount, mode: SetuPaymentMode,
                outcome: Outcome, remarks: String? = nil) {
        self.orderID = orderID
        self.transactionID = transactionID
        self.paidAt = paidAt
        self.amount = amount
        self.mode = mode
        self.outcome = outcome
        self.remarks = remarks
    }
}
