import GraphQL
import JSON
import Synchronization
import Testing

/// `GraphQLEngine.executeImmediately`: synchronous queries finish on the caller's
/// thread; anything that must wait comes back pending and finishes to the same
/// response `execute` gives, with every resolver run once.
@Suite struct ImmediateExecutionTests {
    let fixture: SemanticsFixture
    let engine: GraphQLEngine

    init() throws {
        fixture = try SemanticsFixture()
        engine = GraphQLEngine(schema: fixture.schema)
    }

    func start(_ query: String) -> ImmediateExecution {
        engine.executeImmediately(engine.prepare(query), request: GraphQLRequest(query: query))
    }

    @Test func synchronousQueryFinishesWithoutWaiting() async {
        let query = #"{ hello(name: "now") items { id } pets { ... on Dog { name barks } } }"#
        guard case .finished(let response) = start(query) else {
            Issue.record("a query of sync resolvers should finish immediately")
            return
        }
        let awaited = await engine.execute(GraphQLRequest(query: query))
        #expect(TestSupport.text(response) == TestSupport.text(awaited))
        #expect(TestSupport.text(response) == #"{"data":{"hello":"hello now","items":[{"id":"1"},{"id":"2"}],"pets":[{"name":"Rex","barks":true},{}]}}"#)
    }

    @Test func requestErrorsFinishImmediately() {
        guard case .finished(let response) = start("{ nope }") else {
            Issue.record("an invalid document has nothing to wait for")
            return
        }
        #expect(response.data == nil)
        #expect(!response.errors.isEmpty)
    }

    @Test func asyncResolverComesBackPendingAndFinishesLikeExecute() async {
        let query = "{ hello search { ... on Dog { name } } }"
        guard case .pending(let execution) = start(query) else {
            Issue.record("an async resolver must leave work pending")
            return
        }
        let finished = await execution.finish()
        let awaited = await engine.execute(GraphQLRequest(query: query))
        #expect(TestSupport.text(finished) == TestSupport.text(awaited))
        #expect(TestSupport.text(finished).contains(#""name":"Rex""#))
        let again = await execution.finish()
        #expect(again.data == nil)
        #expect(again.errors.first?.message == "This execution was already finished.")
    }

    @Test func deferredBatchLoadRunsOnceAcrossTheHandOver() async {
        let query = "{ authors { title author { name } } }"
        guard case .pending(let execution) = start(query) else {
            Issue.record("batch loads are deferred work")
            return
        }
        let response = await execution.finish()
        #expect(TestSupport.text(response).contains(#""name":"Author a1""#))
        #expect(fixture.recorder.authorBatches.withLock { $0.count } == 1)
    }

    @Test func mutationsRunSeriallyAfterTheHandOver() async {
        guard case .pending(let execution) = start("mutation { first second }") else {
            Issue.record("mutations always run in a task")
            return
        }
        #expect(fixture.recorder.events.withLock { $0 }.isEmpty)
        let response = await execution.finish()
        #expect(TestSupport.text(response) == #"{"data":{"first":1,"second":2}}"#)
        #expect(fixture.recorder.events.withLock { $0 } == ["start first", "end first", "start second", "end second"])
    }
}
