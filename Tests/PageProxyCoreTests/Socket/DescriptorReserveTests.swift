import Testing

@testable import PageProxyCore

/// The descriptor reserve's rule for files the line does not count (review16 R1).
@Suite struct DescriptorReserveTests {
    @Test("a spool's descriptor may pass the line by less than half the spare, never take the rest; with no line, any")
    func filesKeepOutOfTheLastDescriptors() {
        let line = 200
        #expect(DescriptorReserve.admitsFile(Int32(line + DescriptorReserve.spare / 2 - 1), line: line))
        #expect(!DescriptorReserve.admitsFile(Int32(line + DescriptorReserve.spare / 2), line: line))
        #expect(DescriptorReserve.admitsFile(Int32(line - 1), line: line))
        #expect(DescriptorReserve.admitsFile(Int32.max, line: Int.max))
    }
}
