extension Page {
    /// The URL that answered the page: the one asked for (`url`), or the last a same-origin redirect led to. A page's
    /// relative links resolve against it (RFC 3986 §5.1.3; attack14 M3: `next` links on a page reached through a
    /// redirect were resolved against the URL asked for, and the walk merged another resource's items). `url` stays
    /// what the walk asked for: the cache key, the loop guard and the page's own numbering.
    var answeredURL: PageURL {
        guard let text = headers[RedirectingTransport.answeredURLField], let answered = PageURL(string: text),
            answered.origin == url.origin
        else { return url }
        return answered
    }
}
