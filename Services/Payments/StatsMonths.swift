import Storage

/// The SQL of the statistics per month (`stats_months`, `stats_product_months`): the tables, the
/// triggers by which the database adds every change of a day's row (`stats_days`,
/// `stats_products`) to its month's, and the sums of the days kept before the months were.
enum StatsMonths {
    static let tables = [
        """
        CREATE TABLE stats_months (
            store_id TEXT NOT NULL,
            month TEXT NOT NULL,
            staff_id TEXT NOT NULL,
            method TEXT NOT NULL,
            sales BIGINT NOT NULL,
            takings BIGINT NOT NULL,
            tips BIGINT NOT NULL,
            refunds BIGINT NOT NULL,
            refunds_count BIGINT NOT NULL,
            PRIMARY KEY (store_id, month, staff_id, method)
        )
        """,
        """
        CREATE TABLE stats_product_months (
            store_id TEXT NOT NULL,
            month TEXT NOT NULL,
            product_key TEXT NOT NULL,
            product_id TEXT,
            name TEXT NOT NULL,
            quantity BIGINT NOT NULL,
            revenue BIGINT NOT NULL,
            PRIMARY KEY (store_id, month, product_key)
        )
        """,
    ]

    static let backfill = [
        """
        INSERT INTO stats_months (store_id, month, staff_id, method, sales, takings, tips, refunds, refunds_count)
        SELECT store_id, substr(day, 1, 7), staff_id, method, SUM(sales), SUM(takings), SUM(tips), SUM(refunds),
            SUM(refunds_count)
        FROM stats_days GROUP BY store_id, substr(day, 1, 7), staff_id, method
        """,
        """
        INSERT INTO stats_product_months (store_id, month, product_key, product_id, name, quantity, revenue)
        SELECT store_id, substr(day, 1, 7), product_key, MAX(product_id), MAX(name), SUM(quantity), SUM(revenue)
        FROM stats_products GROUP BY store_id, substr(day, 1, 7), product_key
        """,
    ]

    /// A table of days and its table of months: the keys of a row beside its period, the
    /// columns a month's row takes from its first day's (a product's id and name, the name
    /// renewed by each change as the days' is), and the figures summed.
    struct Pair {
        var days: String
        var months: String
        var keys: [String]
        var copied: [String]
        var figures: [String]
        var renamed: Bool
    }

    static let pairs = [
        Pair(
            days: "stats_days", months: "stats_months", keys: ["staff_id", "method"], copied: [],
            figures: ["sales", "takings", "tips", "refunds", "refunds_count"], renamed: false),
        Pair(
            days: "stats_products", months: "stats_product_months", keys: ["product_key"],
            copied: ["product_id", "name"], figures: ["quantity", "revenue"], renamed: true),
    ]

    /// What a change of a day's row adds to its month's: the month's row made (zeros) when
    /// missing, then the change added (`updated`: what the row held before taken off). The
    /// trigger's rows are `NEW` and `OLD`.
    static func statements(_ pair: Pair, updated: Bool) -> [String] {
        let month = "substr(NEW.day, 1, 7)"
        let columns = ["store_id", "month"] + pair.keys + pair.copied + pair.figures
        let made =
            ["NEW.store_id", month] + (pair.keys + pair.copied).map { "NEW.\($0)" } + pair.figures.map { _ in "0" }
        var changes = pair.figures.map { "\($0) = \(pair.months).\($0) + NEW.\($0)" + (updated ? " - OLD.\($0)" : "") }
        if pair.renamed { changes.append("name = NEW.name") }
        let matches = (["store_id = NEW.store_id", "month = \(month)"] + pair.keys.map { "\($0) = NEW.\($0)" })
            .joined(separator: " AND ")
        return [
            "INSERT INTO \(pair.months) (\(columns.joined(separator: ", "))) VALUES (\(made.joined(separator: ", "))) "
                + "ON CONFLICT DO NOTHING",
            "UPDATE \(pair.months) SET \(changes.joined(separator: ", ")) WHERE \(matches)",
        ]
    }

    /// The triggers, in `kind`'s dialect: after each insert and each update of a day's row.
    static func triggers(_ kind: Database.Kind) -> [String] {
        pairs.flatMap { pair -> [String] in
            switch kind {
            case .sqlite:
                return [false, true].map { updated in
                    "CREATE TRIGGER \(pair.days)_to_months_\(updated ? "update" : "insert") AFTER "
                        + "\(updated ? "UPDATE" : "INSERT") ON \(pair.days) FOR EACH ROW BEGIN "
                        + statements(pair, updated: updated).map { $0 + "; " }.joined() + "END"
                }
            case .postgres:
                let function = "\(pair.days)_to_months"
                func body(_ updated: Bool) -> String {
                    statements(pair, updated: updated).map { $0 + ";" }.joined(separator: "\n")
                }
                return [
                    "CREATE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n"
                        + "IF TG_OP = 'INSERT' THEN\n\(body(false))\nELSE\n\(body(true))\nEND IF;\n"
                        + "RETURN NULL;\nEND\n$$",
                    "CREATE TRIGGER \(function) AFTER INSERT OR UPDATE ON \(pair.days) FOR EACH ROW "
                        + "EXECUTE FUNCTION \(function)()",
                ]
            }
        }
    }
}
