/// A walk's pages read in place from the cache (`PageWalker.Options.cachedPage`), by index, until taken.
///
/// Pages are read and taken in order, so most walks hold one at a time: that one waits inline, any others in a
/// dictionary (issue 13: a dictionary that a page went into and straight out of was an allocation a request).
struct PagesReadInPlace {
    typealias Read = Result<Page, PaginationError>

    private var inline: (index: Int, read: Read)?
    private var others: [Int: Read] = [:]

    func contains(_ index: Int) -> Bool {
        inline?.index == index || others[index] != nil
    }

    mutating func insert(_ read: Read, at index: Int) {
        if inline == nil || inline?.index == index {
            inline = (index, read)
        } else {
            others[index] = read
        }
    }

    /// The page read at `index`, no longer held; nil when there is none.
    mutating func take(_ index: Int) -> Read? {
        if let held = inline, held.index == index {
            inline = nil
            return held.read
        }
        return others.removeValue(forKey: index)
    }

    mutating func removeAll() {
        inline = nil
        others = [:]
    }
}
