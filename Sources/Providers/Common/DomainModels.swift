public import PaymentsCore
/// A customer as PayQL passes it to a provider.
public struct CustomerDetails: Sendable, Hashable {
    /// The merchant's own customer id (Cashfree `customer_id`, Setu `custID`).
    public var id: String?
    /// Display name.
    public var name: String?
    /// E-mail address.
    public var email: String?
    /// Phone number as the provider expects it (Cashfree: 10 digits).
    public var phone: String?

    /// Creates the value from its fields.
    public init(id: String? = nil, name: String? = nil, email: String? = nil, phone: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
    }
}

/// A bank account for Third-Party Validation: payments are only accepted from it.
public struct BankAccountDetails: Sendable, Hashable {
    /// The full account number (sent to the provider, never logged).
    public var accountNumber: String
    /// The branch IFSC.
    public var ifsc: String
    /// The account holder's name.
    public var beneficiaryName: String
    /// Optional holder details for whitelisting (Razorpay `beneficiary_*`); orders ignore them.
    public var beneficiary: BeneficiaryDetails

    /// Creates the value from its fields.
    public init(accountNumber: String, ifsc: String, beneficiaryName: String, beneficiary: BeneficiaryDetails = .init()) {
        self.accountNumber = accountNumber
        self.ifsc = ifsc
        self.beneficiaryName = beneficiaryName
        self.beneficiary = beneficiary
    }
}

/// The optional account-holder details Razorpay's add-bank-account call takes.
public struct BeneficiaryDetails: Sendable, Hashable {
    /// E-mail address.
    public var email: String?
    /// Mobile number as Razorpay's sample writes it (10 national digits).
    public var mobile: String?
    /// Up to four address lines (`beneficiary_address1..4`).
    public var addressLines: [String]
    /// City.
    public var city: String?
    /// State.
    public var state: String?
    /// Country (ISO 3166 alpha-2).
    public var country: String?
    /// Indian PIN code.
    public var pin: String?

    /// Creates the value from its fields.
    public init(email: String? = nil, mobile: String? = nil, addressLines: [String] = [], city: String? = nil, state: String? = nil,
                country: String? = nil, pin: String? = nil) {
        self.email = email
        self.mobile = mobile
        self.addressLines = addressLines
        self.city = city
        self.state = state
        self.country = country
        self.pin = pin
    }
}

/// A payment method family.
public enum PaymentMethodKind: String, Sendable, Hashable, CaseIterable {
    case card, netbanking, upi, wallet, emi
}

/// What the merchant asks for when creating an order (a checkout).
public struct CreateOrderRequest: Sendable {
    /// The merchant's unique reference: Razorpay `receipt`, Cashfree `order_id`,
    /// Instamojo `transaction_id`.
    public var reference: String
    /// The amount, exact in minor units.
    public var amount: Amount
    /// The paying customer.
    public var customer: CustomerDetails?
    /// Shown to the buyer (Instamojo `purpose`, Cashfree `order_note`).
    public var description: String?
    /// Restrict to one method (Razorpay TPV needs one).
    public var method: PaymentMethodKind?
    /// Razorpay TPV: only this account may pay.
    public var tpvBankAccount: BankAccountDetails?
    /// Where the browser returns after paying.
    public var returnURL: String?
    /// Where the provider posts the webhook for this order.
    public var notifyURL: String?
    /// Free-form key/values (Razorpay `notes`, Cashfree `order_tags`).
    public var notes: [String: String]
    /// Safe-retry key, sent where the provider supports one (Cashfree `x-idempotency-key`).
    public var idempotencyKey: String?

    public init(reference: String, amount: Amount, customer: CustomerDetails? = nil, description: String? = nil,
                method: PaymentMethodKind? = nil, tpvBankAccount: BankAccountDetails? = nil,
                returnURL: String? = nil, notifyURL: String? = nil, notes: [String: String] = [:],
                idempotencyKey: String? = nil) {
        self.reference = reference
        self.amount = amount
        self.customer = customer
        self.description = description
        self.method = method
        self.tpvBankAccount = tpvBankAccount
        self.returnURL = returnURL
        self.notifyURL = notifyURL
        self.notes = notes
        self.idempotencyKey = idempotencyKey
    }
}

/// What a client SDK needs to open the provider's checkout for an order.
public enum CheckoutData: Sendable, Hashable {
    /// Razorpay Checkout takes the order id (plus the public key id).
    case razorpay(orderID: String)
    /// Cashfree's SDKs take the payment session id.
    case cashfree(paymentSessionID: String)
    /// Instamojo: the hosted page, and the gateway order id the mobile SDK uses (when created).
    case instamojo(paymentURL: String, gatewayOrderID: String?)
    /// Setu bill pay: the one-time link and its session.
    case setu(link: String, sessionID: String?)
    /// Nothing to hand to a client (e.g. a fetched order).
    case none
}

/// An order as the provider reports it.
public struct ProviderOrder: Sendable, Hashable {
    /// Which provider reported it.
    public var provider: ProviderName
    /// The provider's order id (`order_…`, Cashfree's `order_id`, Instamojo payment request id).
    public var id: String
    /// The merchant reference, as echoed.
    public var reference: String?
    /// The amount, exact in minor units.
    public var amount: Amount
    /// Amount paid so far, when the provider reports it.
    public var amountPaid: Amount?
    /// Unified status; `.unknown(raw)` needs reconciliation.
    public var status: OrderStatus
    /// The provider's status text, unchanged.
    public var rawStatus: String
    /// What the client SDK needs to pay this order.
    public var checkout: CheckoutData
    /// Creation time as the provider wrote it (unix seconds or ISO-8601 text).
    public var createdAt: String?

    /// Creates the value from its fields.
    public init(provider: ProviderName, id: String, reference: String?, amount: Amount, amountPaid: Amount? = nil,
                status: OrderStatus, rawStatus: String, checkout: CheckoutData, createdAt: String? = nil) {
        self.provider = provider
        self.id = id
        self.reference = reference
        self.amount = amount
        self.amountPaid = amountPaid
        self.status = status
        self.rawStatus = rawStatus
        self.checkout = checkout
        self.createdAt = createdAt
    }
}

/// Why a payment failed, in the provider's words.
public struct PaymentFailure: Sendable, Hashable {
    /// The provider's code.
    public var code: String?
    public var description: String?
    /// The provider's reason text.
    public var reason: String?
    /// Where the failure arose (customer, bank, gateway…).
    public var source: String?
    /// The step of the flow that failed.
    public var step: String?

    public init(code: String? = nil, description: String? = nil, reason: String? = nil, source: String? = nil, step: String? = nil) {
        self.code = code
        self.description = description
        self.reason = reason
        self.source = source
        self.step = step
    }
}

/// One payment attempt.
public struct ProviderPayment: Sendable, Hashable {
    /// Which provider reported it.
    public var provider: ProviderName
    /// The identifier, as the provider writes it.
    public var id: String
    /// The order this belongs to (provider id).
    public var orderID: String?
    /// The amount, exact in minor units.
    public var amount: Amount
    /// Unified status; `.unknown(raw)` needs reconciliation.
    public var status: PaymentStatus
    /// The provider's status text, unchanged.
    public var rawStatus: String
    /// The method as the provider names it (`upi`, `credit_card`, `UPI`).
    public var method: String?
    /// Why it failed, when it did.
    public var failure: PaymentFailure?

    /// Creates the value from its fields.
    public init(provider: ProviderName, id: String, orderID: String?, amount: Amount, status: PaymentStatus,
                rawStatus: String, method: String? = nil, failure: PaymentFailure? = nil) {
        self.provider = provider
        self.id = id
        self.orderID = orderID
        self.amount = amount
        self.status = status
        self.rawStatus = rawStatus
        self.method = method
        self.failure = failure
    }
}

/// A refund request.
public struct RefundRequest: Sendable {
    /// The provider's payment id.
    public var paymentID: String
    /// The provider's order id (Cashfree refunds live under the order).
    public var orderID: String?
    /// Partial amount; nil refunds the whole payment where the provider allows it.
    public var amount: Amount?
    /// The merchant's unique refund reference (Cashfree `refund_id`, Instamojo `transaction_id`, Razorpay `receipt`).
    public var reference: String
    /// A note for the refund, where the provider takes one.
    public var note: String?
    /// Safe-retry key (Razorpay `X-Refund-Idempotency`, Cashfree `x-idempotency-key`).
    public var idempotencyKey: String?
    /// The speed asked for, where the provider takes one (Razorpay `speed`, Cashfree `refund_speed`); nil sends none.
    public var speed: RefundSpeed?

    /// Creates the value from its fields.
    public init(paymentID: String, orderID: String? = nil, amount: Amount? = nil, reference: String,
                note: String? = nil, idempotencyKey: String? = nil, speed: RefundSpeed? = nil) {
        self.paymentID = paymentID
        self.orderID = orderID
        self.amount = amount
        self.reference = reference
        self.note = note
        self.idempotencyKey = idempotencyKey
        self.speed = speed
    }
}

/// How fast a refund should reach the customer.
public enum RefundSpeed: Sendable, Hashable {
    /// The provider's standard refund (Razorpay `normal`, Cashfree `STANDARD`).
    case normal
    /// As fast as the provider can (Razorpay `optimum`, Cashfree `INSTANT`); the provider may fall back to normal.
    case instant
}

/// A refund as the provider reports it.
public struct ProviderRefund: Sendable, Hashable {
    /// Which provider reported it.
    public var provider: ProviderName
    /// The identifier, as the provider writes it.
    public var id: String
    /// The provider's payment id.
    public var paymentID: String?
    /// The merchant's reference, as echoed.
    public var reference: String?
    /// The amount, exact in minor units.
    public var amount: Amount?
    /// Unified status; `.unknown(raw)` needs reconciliation.
    public var status: RefundStatus
    /// The provider's status text, unchanged.
    public var rawStatus: String

    /// Creates the value from its fields.
    public init(provider: ProviderName, id: String, paymentID: String?, reference: String?, amount: Amount?,
                status: RefundStatus, rawStatus: String) {
        self.provider = provider
        self.id = id
        self.paymentID = paymentID
        self.reference = reference
        self.amount = amount
        self.status = status
        self.rawStatus = rawStatus
    }
}

/// A customer created at a provider.
public struct ProviderCustomer: Sendable, Hashable {
    /// Which provider reported it.
    public var provider: ProviderName
    /// The identifier, as the provider writes it.
    public var id: String
    /// Display name.
    public var name: String?
    /// E-mail address.
    public var email: String?
    /// Phone number.
    public var phone: String?
    /// GST identification number.
    public var gstin: String?
    /// Free-form key/values.
    public var notes: [String: String]

    /// Creates the value from its fields.
    public init(provider: ProviderName, id: String, name: String?, email: String?, phone: String?,
                gstin: String? = nil, notes: [String: String] = [:]) {
        self.provider = provider
        self.id = id
        self.name = name
        self.email = email
        self.phone = phone
        self.gstin = gstin
        self.notes = notes
    }
}

/// A whitelisted (TPV) bank account, masked as the provider returns it.
public struct ProviderBankAccount: Sendable, Hashable {
    /// Which provider reported it.
    public var provider: ProviderName
    /// The identifier, as the provider writes it.
    public var id: String
    /// The account number as the provider masks it.
    public var maskedAccountNumber: String?
    /// The branch IFSC.
    public var ifsc: String?
    /// The bank's name.
    public var bankName: String?
    /// The account holder's name.
    public var beneficiaryName: String?

    /// Creates the value from its fields.
    public init(provider: ProviderName, id: String, maskedAccountNumber: String?, ifsc: String?,
                bankName: String?, beneficiaryName: String?) {
        self.provider = provider
        self.id = id
        self.maskedAccountNumber = maskedAccountNumber
        self.ifsc = ifsc
        self.bankName = bankName
        self.beneficiaryName = beneficiaryName
    }
}
