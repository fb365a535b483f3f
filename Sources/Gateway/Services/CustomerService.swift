import Foundation
import PaymentsCore
import Postgres
import Providers

/// Customers: create (Razorpay's `fail_existing` semantics), update, register at providers.
struct CustomerService: Sendable {
    let customers: CustomerStore
    let providers: ProviderRegistry

    /// `createCustomer`'s input, decoded.
    struct CreateRequest: Sendable {
        var name: String?
        var email: String?
        var phone: String?
        var gstin: String?
        var notes: [(key: String, value: String)]?
        var failIfExists: Bool
        var registerWith: [ProviderName]
    }

    /// What `create` did.
    struct Created: Sendable {
        var customer: CustomerRecord?
        var existing: Bool
        var userErrors: [UserError]
    }

    func create(_ request: CreateRequest, context: GatewayRequestContext) async throws -> Created {
        let name = try Validation.text(request.name, field: ["input", "name"])
        let email = try Validation.email(request.email, field: ["input", "email"])
        let gstin = try Validation.gstin(request.gstin, field: ["input", "gstin"])
        let notes = try Validation.notes(request.notes, field: ["input", "notes"]) ?? Notes()
        guard name != nil || email != nil || request.phone != nil else {
            throw UserError(.required, "a customer needs at least a name, an email or a phone", field: ["input"])
        }
        for provider in request.registerWith where provider != .razorpay {
            throw UserError(.capabilityNotSupported, "\(provider.graphQLName) keeps no customer records; only RAZORPAY does",
                            field: ["input", "registerWith"])
        }
        let (customer, existing) = try await customers.insertOrFind(name: name, email: email, phone: request.phone, gstin: gstin, notes: notes)
        if existing && request.failIfExists {
            throw UserError(.alreadyExists, "a customer with this phone and email exists", field: ["input"])
        }
        var userErrors: [UserError] = []
        if request.registerWith.contains(.razorpay) {
            if let error = await register(customer, at: .razorpay, context: context) { userErrors.append(error) }
        }
        return Created(customer: customer, existing: existing, userErrors: userErrors)
    }

    /// Creates (or finds: `fail_existing: 0`) the customer at Razorpay and records its id; a user error if that failed.
    func register(_ customer: CustomerRecord, at provider: ProviderName, context: GatewayRequestContext) async -> UserError? {
        guard provider == .razorpay else { return UserError(.capabilityNotSupported, "only RAZORPAY keeps customers") }
        guard let razorpay = providers.razorpay else { return UserError(.noRoute, "RAZORPAY is not configured", provider: .razorpay) }
        do {
            let details = CustomerDetails(name: customer.name, email: customer.email, phone: customer.phone)
            let created = try await context.timingProvider {
                try await razorpay.createCustomer(details, gstin: customer.gstin, notes: customer.notes.dictionary, failIfExists: false)
            }
            try await customers.addProviderReference(customerID: customer.id, provider: .razorpay, providerCustomerID: created.id)
            return nil
        } catch let error as ProviderError {
            return UserError.provider(error)
        } catch {
            return UserError(.providerUnavailable, "the customer could not be recorded: \(error)", provider: .razorpay, retryable: true)
        }
    }

    /// `updateCustomer`'s input, decoded.
    struct UpdateRequest: Sendable {
        var customerID: UUID
        var name: String?
        var email: String?
        var phone: String?
        var gstin: String?
        var notes: [(key: String, value: String)]?
    }

    func update(_ request: UpdateRequest) async throws -> CustomerRecord {
        let name = try Validation.text(request.name, field: ["input", "name"])
        let email = try Validation.email(request.email, field: ["input", "email"])
        let gstin = try Validation.gstin(request.gstin, field: ["input", "gstin"])
        let notes = try Validation.notes(request.notes, field: ["input", "notes"])
        do {
            guard let updated = try await customers.update(id: request.customerID, name: name, email: email, phone: request.phone,
                                                           gstin: gstin, notes: notes) else {
                throw UserError(.notFound, "no such customer", field: ["input", "customerId"])
            }
            return updated
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw UserError(.alreadyExists, "another customer has this phone and email", field: ["input"])
        }
    }
}
