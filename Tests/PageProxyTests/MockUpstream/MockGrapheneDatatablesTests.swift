import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The mock's copies of graphene-django's Relay connection over GET and djangorestframework-datatables
/// (scripts/real-upstreams, real15).
@Suite struct MockGrapheneDatatablesTests {
    @Test("each walked by its own rules yields the dataset: graphene's endCursor in variables, DataTables' start to recordsFiltered",
          arguments: [MockService.graphene, .datatables])
    func walks(service: MockService) async {
        for total in [0, 3, 10, 25, 30] {
            let walk = await MockWalkers.walk(service, MockUpstream(), total: total, pageSize: 10)
            #expect(walk.failure == nil, "\(service) \(total): \(walk.failure ?? "")")
            #expect(walk.items == MockDataset.items(total: total), "\(service) \(total)")
        }
    }

    @Test("graphene: first and after only in variables (a plain after= ignored), the end cursor on the last page too, first above the largest an error in a 200")
    func graphene() async throws {
        let mock = MockUpstream()
        let first = MockTestSupport.text(await MockTestSupport.send(mock, "/graphene/items?variables=%7B%22first%22%3A10%7D&mock_total=25"))
        #expect(first.hasPrefix(#"{"data":{"things":{"totalCount":25,"edges":[{"node":{"id":1,"#))
        #expect(first.hasSuffix(#""pageInfo":{"hasNextPage":true,"endCursor":"YXJyYXljb25uZWN0aW9uOjk="}}}}"#))
        let ignored = MockTestSupport.text(await MockTestSupport.send(mock, "/graphene/items?variables=%7B%22first%22%3A10%7D&after=YXJyYXljb25uZWN0aW9uOjk%3D&mock_total=25"))
        #expect(ignored == first)
        let last = MockTestSupport.text(await MockTestSupport.send(mock, "/graphene/items?variables=%7B%22first%22%3A10%2C%22after%22%3A%22YXJyYXljb25uZWN0aW9uOjE5%22%7D&mock_total=25"))
        #expect(last.contains(#"{"node":{"id":21,"#))
        #expect(last.hasSuffix(#""pageInfo":{"hasNextPage":false,"endCursor":"YXJyYXljb25uZWN0aW9uOjI0"}}}}"#))
        let past = MockTestSupport.text(await MockTestSupport.send(mock, "/graphene/items?variables=%7B%22after%22%3A%22YXJyYXljb25uZWN0aW9uOjI0%22%7D&mock_total=25"))
        #expect(past.hasSuffix(#""edges":[],"pageInfo":{"hasNextPage":false,"endCursor":null}}}}"#))
        let tooMany = await MockTestSupport.send(mock, "/graphene/items?variables=%7B%22first%22%3A1000%7D&mock_total=25")
        #expect(tooMany.status == 200)
        #expect(MockTestSupport.text(tooMany).hasPrefix(#"{"errors":[{"message":"Requesting 1000 records"#))
    }

    @Test("DataTables: start read as the page start / length + 1, the page past the last a 404 whose data is an object")
    func datatables() async throws {
        let mock = MockUpstream()
        let first = MockTestSupport.text(await MockTestSupport.send(mock, "/datatables/items?start=0&length=10&mock_total=25"))
        #expect(first.hasPrefix(#"{"recordsTotal":25,"recordsFiltered":25,"data":[{"id":1,"#))
        #expect(first.hasSuffix(#"],"draw":1}"#))
        let rounded = MockTestSupport.text(await MockTestSupport.send(mock, "/datatables/items?start=15&length=10&mock_total=25&draw=3"))
        #expect(rounded.contains(#""data":[{"id":11,"#) && rounded.hasSuffix(#""draw":3}"#))
        let past = await MockTestSupport.send(mock, "/datatables/items?start=30&length=10&mock_total=25")
        #expect(past.status == 404)
        #expect(MockTestSupport.text(past).hasPrefix(#"{"data":{"detail":"Invalid page."}"#))
    }
}
