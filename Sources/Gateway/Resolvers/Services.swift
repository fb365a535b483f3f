import Foundation
import Postgres

/// Everything resolvers call: the services and stores of one Gateway.
final class GatewayServices: Sendable {
    let pool: PostgresPool
    let configuration: GatewayConfiguration
    let providers: ProviderRegistry
    let keys: APIKeys
    let customerStore: CustomerStore
    let orderStore: OrderStore
    let paymentStore: PaymentStore
    let bankAccountStore: BankAccountStore
    let customers: CustomerService
    let bankAccounts: BankAccountService
    let linkedAccountStore: LinkedAccountStore
    let turboSessions: TurboSessionService
    let linkedUpiAccounts: LinkedUpiAccountService
    let orders: OrderService
    let sessions: SessionService
    let webhooks: WebhookService
    let idempotency: IdempotencyKeys
    let rewardStore: RewardStore
    let rewards: RewardService
    let billPayStore: BillPayStore
    let billPay: BillPayService
    let setuPartner: SetuPartnerEndpoints
    let billConfirmations: BillConfirmations
    let upiCollectStore: UpiCollectStore
    let upiCollects: UpiCollectService
    let paymentOptions: PaymentOptionsService

    init(pool: PostgresPool, configuration: GatewayConfiguration, providers: ProviderRegistry, keys: APIKeys) {
        self.pool = pool
        self.configuration = configuration
        self.providers = providers
        self.keys = keys
        customerStore = CustomerStore(pool: pool)
        orderStore = OrderStore(pool: pool)
        paymentStore = PaymentStore(pool: pool)
        customers = CustomerService(customers: customerStore, providers: providers)
        bankAccountStore = BankAccountStore(pool: pool)
        bankAccounts = BankAccountService(accounts: bankAccountStore, customers: customerStore, customerService: customers,
                                          providers: providers, keys: configuration.dataKeys)
        linkedAccountStore = LinkedAccountStore(pool: pool)
        turboSessions = TurboSessionService(customers: customerStore, orders: orderStore, bankAccounts: bankAccountStore, providers: providers)
        linkedUpiAccounts = LinkedUpiAccountService(store: linkedAccountStore, customers: customerStore, orders: orderStore,
                                                    bankAccounts: bankAccountStore)
        orders = OrderService(orders: orderStore, payments: paymentStore, customers: customerStore, providers: providers,
                              configuration: configuration, bankAccounts: bankAccounts)
        sessions = SessionService(pool: pool, customers: customerStore, configuration: configuration)
        webhooks = WebhookService(pool: pool, providers: providers)
        idempotency = IdempotencyKeys(pool: pool)
        rewardStore = RewardStore(pool: pool)
        rewards = RewardService(store: rewardStore, customers: customerStore)
        billPayStore = BillPayStore(pool: pool)
        billPay = BillPayService(store: billPayStore, customers: customerStore, orders: orders, orderStore: orderStore, providers: providers,
                                 configuration: configuration)
        let refunds = RefundService(refunds: RefundStore(pool: pool), payments: paymentStore, orders: orderStore, providers: providers)
        setuPartner = SetuPartnerEndpoints(store: billPayStore, refunds: refunds, providers: providers)
        billConfirmations = BillConfirmations(pool: pool, providers: providers, refunds: refunds)
        upiCollectStore = UpiCollectStore(pool: pool)
        upiCollects = UpiCollectService(store: upiCollectStore, orders: orders, orderStore: orderStore, providers: providers,
                                        settings: configuration.upiCollects, dataKeys: configuration.dataKeys,
                                        gate: UpiCollectPollGate(limit: configuration.upiCollects.maximumChecksInFlight))
        paymentOptions = PaymentOptionsService(providers: providers)
    }
}
