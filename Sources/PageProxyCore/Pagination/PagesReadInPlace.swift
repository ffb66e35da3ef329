/// A walk's pages read in place from the cache (`PageWalker.Options.cachedPage`), by index, until taken.
///
/// Pages are read and taken in order, so most walks hold one at a time: that one waits inline, any others in a
/// dictionary (issue 13: a dictionary that a page went into and straight out of was an allocation a request).
struct PagesReadInPlace {
    typealias Read = Result<Page, PaginationError>

    /// The index of the page held inline, -1 for none: kept apart from the page, so that asking whether a page is held
    /// (`PageWalker.isNextPageAtHand`, once a page on an NDJSON walk) reads an integer, not a copy of the whole value
    /// with a retain of each of its page's parts (issue 13, thirteenth pass: ~2 % of a walk through pages in memory).
    private var inlineIndex = -1
    private var inlineRead: Read?
    private var others: [Int: Read] = [:]

    func contains(_ index: Int) -> Bool {
        inlineIndex == index || (!others.isEmpty && others[index] != nil)
    }

    mutating func insert(_ read: Read, at index: Int) {
        if inlineIndex < 0 || inlineIndex == index {
            (inlineIndex, inlineRead) = (index, read)
        } else {
            others[index] = read
        }
    }

    /// The page read at `index`, no longer held; nil when there is none.
    mutating func take(_ index: Int) -> Read? {
        if inlineIndex == index, let held = inlineRead.take() {
            inlineIndex = -1
            return held
        }
        return others.isEmpty ? nil : others.removeValue(forKey: index)
    }

    mutating func removeAll() {
        (inlineIndex, inlineRead) = (-1, nil)
        others = [:]
    }
}
