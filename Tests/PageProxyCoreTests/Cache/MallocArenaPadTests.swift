import CLinux
import Testing

/// Malloc's arenas are made writable `M_TOP_PAD` ahead (CLinux.c; issue 13, seventh pass): a thread allocating a
/// read-back's entries grows its heap with no `mprotect` a page run. The PageProxy executable asks for it first thing in
/// `main`; the library alone changes nothing in the programs that link it.
@Suite(.enabled(if: !SanitizedRun.isOn, "a sanitizer's malloc is not glibc's")) struct MallocArenaPadTests {
    @Test("the pad and the mmap threshold are set when asked, and reported")
    func thePadIsSetWhenAsked() {
        #expect(pageproxy_pad_malloc_arenas() == 16 << 20)
        #expect(pageproxy_malloc_top_pad() == 16 << 20)
    }
}
