extension Int64 {
    /// The value of 1 to 18 ASCII digits and nothing else (no sign, no spaces): the form the API
    /// document gives versions and sequence cursors (`^[0-9]{1,18}$`); nil for anything else.
    public init?(digits text: some StringProtocol) {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        self.init(text)
    }
}
