import Foundation
import JSON
import PaymentsCore
import Postgres

/// The stored form of a decision (`orders.routing`, jsonb). Provider names are the
/// contract's (`RAZORPAY`); times are microseconds since the epoch, as PostgreSQL keeps them.
extension RoutingDecision {
    /// The jsonb written with the order.
    var jsonb: PostgresJSONB { PostgresJSONB(text: JSONWriter.string(.object(json))) }

    var json: JSONObject {
        var object = JSONObject()
        object.append("provider", provider.map { .string($0.graphQLName) } ?? .null)
        object.append("ruleId", ruleID.map { .string($0.uuidString.lowercased()) } ?? .null)
        object.append("reason", .string(reason))
        object.append("candidates", .array(candidates.map { candidate in
            var item = JSONObject()
            item.append("provider", .string(candidate.provider.graphQLName))
            item.append("eligible", .bool(candidate.eligible))
            item.append("rejectionReasons", .array(candidate.rejections.map { .string($0.rawValue) }))
            item.append("detail", candidate.detail.map(JSONValue.string) ?? .null)
            item.append("health", .string(candidate.health))
            return .object(item)
        }))
        object.append("failoverOrder", .array(failoverOrder.map { .string($0.graphQLName) }))
        object.append("failovers", .array(failovers.map { failover in
            var item = JSONObject()
            item.append("from", .string(failover.from.graphQLName))
            item.append("to", .string(failover.to.graphQLName))
            item.append("errorCode", .string(failover.errorCode))
            item.append("message", failover.message.map(JSONValue.string) ?? .null)
            item.append("at", .int(failover.at.microsecondsSinceEpoch))
            return .object(item)
        }))
        object.append("evaluatedAt", .int(evaluatedAt.microsecondsSinceEpoch))
        return object
    }

    /// Reads what ``jsonb`` wrote; nil for anything else (a decision is never guessed).
    init?(jsonb: PostgresJSONB) {
        guard case .object(let object)? = try? JSONParser.parse(jsonb.text) else { return nil }
        self.init(json: object)
    }

    init?(json object: JSONObject) {
        func provider(_ value: JSONValue?) -> ProviderName? { value?.stringValue.flatMap(ProviderName.init(graphQLName:)) }
        guard let reason = object["reason"]?.stringValue, let evaluated = object["evaluatedAt"]?.intValue,
              let candidateItems = object["candidates"]?.arrayValue, let order = object["failoverOrder"]?.arrayValue else { return nil }
        var candidates: [Candidate] = []
        for item in candidateItems {
            guard let name = provider(item["provider"]), let eligible = item["eligible"]?.boolValue,
                  let reasons = item["rejectionReasons"]?.arrayValue else { return nil }
            candidates.append(Candidate(provider: name, eligible: eligible,
                                        rejections: reasons.compactMap { $0.stringValue.flatMap(RoutingRejection.init(rawValue:)) },
                                        detail: item["detail"]?.stringValue, health: item["health"]?.stringValue ?? "UNKNOWN"))
        }
        var failovers: [Failover] = []
        for item in object["failovers"]?.arrayValue ?? [] {
            guard let from = provider(item["from"]), let to = provider(item["to"]), let code = item["errorCode"]?.stringValue,
                  let at = item["at"]?.intValue else { return nil }
            failovers.append(Failover(from: from, to: to, errorCode: code, message: item["message"]?.stringValue,
                                      at: PostgresTimestamp(microsecondsSinceEpoch: at)))
        }
        self.init(provider: provider(object["provider"]), ruleID: object["ruleId"]?.stringValue.flatMap(UUID.init(uuidString:)),
                  reason: reason, candidates: candidates, failoverOrder: order.compactMap(provider), failovers: failovers,
                  evaluatedAt: PostgresTimestamp(microsecondsSinceEpoch: evaluated))
    }
}
