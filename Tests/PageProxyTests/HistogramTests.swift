import Testing

@testable import PageProxy

/// A histogram's buckets are listed cumulatively, whatever it keeps inside.
@Suite struct HistogramTests {
    @Test("each bucket counts the observations at or under its bound; +Inf and _count count them all")
    func bucketsAreCumulative() {
        var histogram = Histogram()
        for seconds in [0.001, 0.005, 0.007, 0.3, 31, 0.3] { histogram.observe(seconds) }
        #expect(histogram.cumulativeCounts == [2, 3, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5])
        #expect(histogram.count == 6)
        let lines = histogram.lines(name: "h", labels: #"route="a""#).split(separator: "\n")
        #expect(lines.first == #"h_bucket{route="a",le="0.005"} 2"#)
        #expect(lines.contains(#"h_bucket{route="a",le="0.5"} 5"#))
        #expect(lines.contains(#"h_bucket{route="a",le="30.0"} 5"#))
        #expect(lines.contains(#"h_bucket{route="a",le="+Inf"} 6"#))
        #expect(lines.last == #"h_count{route="a"} 6"#)
        #expect(Histogram().lines(name: "h", labels: "").split(separator: "\n").last == "h_count 0")
    }
}
