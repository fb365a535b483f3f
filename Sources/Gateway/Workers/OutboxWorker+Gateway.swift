public import HTTPClient

extension Gateway {
    /// Every outbox handler this gateway has, its outgoing calls made through `client`
    /// (merchant webhooks; whatever else enqueues work adds its handler here).
    public func outboxHandlers(client: HTTPClient) -> [OutboxHandler] {
        [services.billConfirmations.handler, BillRefundReports.handler(store: services.billPayStore, providers: services.providers),
         MerchantWebhooks.handler(services.configuration.merchantWebhooks, client: client)]
    }
}

extension OutboxWorker {
    /// A worker delivering every kind `gateway` has a handler for, its calls made through `client`
    /// (shut the client down after the worker).
    public convenience init(gateway: Gateway, client: HTTPClient, configuration: OutboxConfiguration = .init(),
                            report: @escaping @Sendable (OutboxEvent) -> Void = { _ in }) {
        self.init(pool: gateway.services.pool, handlers: gateway.outboxHandlers(client: client), configuration: configuration, report: report)
    }
}
