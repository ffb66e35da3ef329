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

    @Test("under a very low limit the line keeps room above the descriptors held at start (retest13 N1: at 48, every client was refused)")
    func aLowLimitKeepsRoomForAFewClients() {
        let line = DescriptorReserve.line(softLimit: 48, heldEntryFiles: 0, openNow: 20)
        #expect(line > 20 && line <= 48 - DescriptorReserve.spare / 4)
        #expect(DescriptorReserve.maxConnections(below: line, held: 20) >= 2)
        // A usual limit: the whole spare kept, the line far above what is held.
        #expect(DescriptorReserve.line(softLimit: 1024, heldEntryFiles: 0, openNow: 20) == 1024 - DescriptorReserve.spare)
        #expect(DescriptorReserve.maxConnections(below: 992, held: 20) == 486)
    }
}
