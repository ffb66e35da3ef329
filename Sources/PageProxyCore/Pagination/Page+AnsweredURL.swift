extension Page {
    /// The URL that answered the page: the one asked for (`url`), or the last a same-origin redirect led to. A page's
    /// relative links resolve against it (RFC 3986 §5.1.3; attack14 M3: `next` links on a page reached through a
    /// redirect were resolved against the URL asked for, and the walk merged another resource's items). `url` stays
    /// what the walk asked for: the cache key, the loop guard and the page's own numbering.
    ///
    /// The field holds the URL with its credential query values `REDACTED` (it is stored in cache files): each is
    /// the asked URL's value of the same name, where it has one that is a credential too, by its name or by its
    /// shape (a redirect keeps the query's credentials; a `cursor=eyJ….….…` is redacted as a JWT, `SecretValueShape`).
    var answeredURL: PageURL {
        guard let text = headers[RedirectingTransport.answeredURLField], let answered = PageURL(string: text),
            answered.origin == url.origin
        else { return url }
        var restored = answered
        for pair in answered.queryPairs where pair.value == "REDACTED" {
            guard let name = PageURL.decodeQueryComponent(pair.name), let value = url.queryValue(name),
                CredentialRedaction.isSecretName(pair.name) || SecretValueShape.isFound(in: value)
            else { continue }
            restored = restored.settingQueryValue(value, for: name)
        }
        return restored
    }
}
