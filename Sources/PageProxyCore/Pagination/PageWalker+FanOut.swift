/// The walk's fan-out: the window of pages fetched (or read in place) ahead of the one taken, up to `concurrency`;
/// the read-ahead told of the pages past it; the guessed pages of a `lookahead` scheme; and the fetches decided for
/// `walk` to run.
extension PageWalker {
    /// One past the last page the concurrency window allows, saturating for a huge `concurrency`.
    var windowEnd: Int {
        let (end, overflow) = nextToTake.addingReportingOverflow(max(1, options.concurrency))
        return overflow ? Int.max : end
    }

    /// Decides the fetches of the window's pages not launched yet (or reads them in place), then the guesses past it.
    func launchWindow() {
        guard !isFinished else { return }
        // The read-ahead first: its thread starts on the pages past the window while this one reads the window's in
        // place (issue 13, twelfth pass: told after them, it started a page or more behind the walk, in lockstep).
        tellReadAhead()
        launchSizeProof()
        let end = min(urls.count, windowEnd)
        while nextToLaunch < end {
            let index = nextToLaunch
            let url = urls[index]
            if let response = options.cachedPage?(url, index + 1) {
                let read = Result { () throws(PaginationError) in
                    try Self.page(from: response, url: url, number: index + 1, paths: scanPaths)
                }
                readInPlace.insert(read, at: index)
            } else {
                fetching[index] = decideFetch(url, number: index + 1, isGuess: false)
            }
            nextToLaunch += 1
        }
        launchSpeculation(windowEnd: windowEnd)
    }

    /// Tells `Options.readAhead` of the next pages, half a distance at a time: those known ahead, else guesses.
    func tellReadAhead() {
        guard let readAhead = options.readAhead, !isFinished else { return }
        let distance = Self.readAheadDistance
        if let (pages, next, end) = pending {
            let until = min(end, next + distance)
            // A mark moves only once the pages were told: not wanted now, they are offered again at the next page. No
            // page past the window: nothing to tell (a telling of none was a hop to the read-ahead's thread for nothing).
            guard max(readAheadEnd, next) < until, readAheadEnd <= next + distance / 2, readAhead.isWanted() else { return }
            let indices = max(readAheadEnd, next)..<until
            readAheadEnd = until
            // The pages known ahead follow the page before the first of them (`append`): index i is page number
            // firstNumberedPage + i + 1, as `launchWindow` numbers them.
            readAhead.read((firstNumberedPage ?? 0) + indices.lowerBound + 1) { indices.map(pages.url(at:)) }
            return
        }
        // Guesses only once the first page said the pages are known one by one (not before it says how many).
        let known = urls.count
        // `isWanted` first: a walk through pages in memory is not wanting, and a guess a page was ~7 % of it (issue 13).
        guard nextToTake > 0, !isListComplete, !isSpeculationStopped, guessedAheadEnd <= known + distance / 2, let last = urls.last,
            readAhead.isWanted(), strategy.guessNext(after: last) != nil
        else { return }
        let (from, until, strategy, origin) = (max(guessedAheadEnd, known), known + distance, strategy, origin)
        guessedAheadEnd = until
        readAhead.read(from + 1) {
            var (guesses, url) = ([PageURL](), last)
            for index in known..<until {
                guard let guess = strategy.guessNext(after: url), guess.origin == origin else { break }
                if index >= from { guesses.append(guess) }
                url = guess
            }
            return guesses
        }
    }

    /// With no total known, fetches up to `lookahead` guessed pages past the last known one, within the window.
    func launchSpeculation(windowEnd: Int) {
        let lookahead = strategy.lookahead
        guard lookahead > 0, !isListComplete, !isSpeculationStopped, nextToLaunch == urls.count else { return }
        let limit = min(options.maxPages, standing.pageCap ?? Int.max)
        while speculative.count < lookahead, urls.count + speculative.count < min(windowEnd, limit) {
            guard let previous = guessBase(), let guess = strategy.guessNext(after: previous),
                guess.origin == origin, !seen.contains(guess)
            else { return }
            let number = urls.count + speculative.count + 1
            speculative.append((guess, decideFetch(guess, number: number, isGuess: true)))
        }
    }

    func discardSpeculation() {
        discarded += speculative.map(\.fetch)
        speculative = []
    }

    /// After a guess missed the page the upstream named: re-base later guesses on the upstream's link once, when
    /// numbering that link's path reproduces it; otherwise stop guessing, here and (through the memory) in later
    /// walks from the same first URL. A guess that cannot be confirmed is never sent twice.
    func learn(missed guess: PageURL, actual: PageURL) {
        let first = firstURL
        let memory = options.lookaheadMemory
        let guessedOnFirstURL = urls.count == 1 && memory?.lesson(for: first) == nil
        if guessedOnFirstURL, let rebased = strategy.guessNext(after: first.replacingPath(actual.path)), rebased.isSamePage(as: actual) {
            memory?.learn(.rebase(path: actual.path), for: first)
            return
        }
        memory?.learn(.never, for: first)
        isSpeculationStopped = true
    }

    /// The URL the next guess is numbered from: the last guess, else the last known page; for the first page, where
    /// earlier walks saw the links point (or nowhere, if their guesses could not be confirmed).
    func guessBase() -> PageURL? {
        if let last = speculative.last?.url { return last }
        guard let last = urls.last else { return nil }
        guard urls.count == 1, let lesson = options.lookaheadMemory?.lesson(for: last) else { return last }
        switch lesson {
        case .never: return nil
        case .rebase(let path): return last.replacingPath(path)
        }
    }

    /// A fetch the walk has decided on, named for its driver.
    typealias FetchID = Int

    /// A fetch to start, as a child of the walk's group.
    struct Launch {
        let fetch: FetchID
        let url: PageURL
        let number: Int
        /// A speculative fetch (`lookahead`), which the walk may discard alone.
        let isGuess: Bool
    }

    func decideFetch(_ url: PageURL, number: Int, isGuess: Bool) -> FetchID {
        lastFetchID += 1
        launches.append(Launch(fetch: lastFetchID, url: url, number: number, isGuess: isGuess))
        return lastFetchID
    }

    /// The work of one fetch, to run off the walker (it captures nothing of it).
    func loader(for launch: Launch) -> @Sendable () async -> Result<Page, PaginationError> {
        let (url, number, paths, fetch) = (launch.url, launch.number, scanPaths, fetch)
        return {
            do throws(PaginationError) {
                return .success(try await Self.load(url, number: number, paths: paths, fetch: fetch))
            } catch {
                return .failure(error)
            }
        }
    }
}
