import Runtime

extension SettingsReader {
    /// The networks a comma-separated setting lists (`127.0.0.0/8, ::1`), or none when it is
    /// `none` (the default); each that is not an address or a network is reported.
    mutating func networks(_ key: String) -> [IPNetwork] {
        var networks: [IPNetwork] = []
        let text = string(key, default: "none")
        guard text != "none" else { return [] }
        for item in text.split(separator: ",") {
            if let network = IPNetwork(item.trimmingCharacters(in: .whitespaces)) {
                networks.append(network)
            } else {
                report(key, "expected addresses or networks (127.0.0.0/8), got '\(item)'")
            }
        }
        return networks
    }
}
