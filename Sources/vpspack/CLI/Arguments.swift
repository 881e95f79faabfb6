/// A usage error: exit 64, message to stderr with the command's usage line.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// The arguments of one command, consumed option by option.
///
/// A command asks for each option it knows (``flag(_:)``, ``option(_:)``,
/// ``options(_:)``) and then calls ``finish()``, which rejects anything left
/// over, so an unknown or misspelt option is a usage error, never ignored.
struct Arguments {
    private var items: [String]
    private var consumed: [Bool]

    init(_ items: [String]) {
        self.items = items
        self.consumed = Array(repeating: false, count: items.count)
    }

    /// True when `--help` or `-h` was given.
    var wantsHelp: Bool { items.contains("--help") || items.contains("-h") }

    /// True when the flag is present; consumes every occurrence.
    mutating func flag(_ name: String) -> Bool {
        var found = false
        for i in items.indices where !consumed[i] && items[i] == name {
            consumed[i] = true
            found = true
        }
        return found
    }

    /// The value of an option given once as `--name VALUE` or `--name=VALUE`.
    mutating func option(_ name: String) throws(UsageError) -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw UsageError("\(name) was given \(values.count) times; give it once") }
        return values.first
    }

    /// Every value of a repeatable option, in order.
    mutating func options(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        var i = 0
        while i < items.count {
            defer { i += 1 }
            guard !consumed[i] else { continue }
            if items[i] == name {
                guard i + 1 < items.count, !consumed[i + 1] else { throw UsageError("\(name) needs a value") }
                consumed[i] = true
                consumed[i + 1] = true
                values.append(items[i + 1])
                i += 1
            } else if items[i].hasPrefix(name + "=") {
                consumed[i] = true
                values.append(String(items[i].dropFirst(name.count + 1)))
            }
        }
        return values
    }

    /// A required option.
    mutating func required(_ name: String) throws(UsageError) -> String {
        guard let value = try option(name) else { throw UsageError("missing \(name)") }
        return value
    }

    /// An option parsed by `parse`, with a usage error naming the option when it fails.
    mutating func option<T>(_ name: String, _ what: String, _ parse: (String) -> T?) throws(UsageError) -> T? {
        guard let text = try option(name) else { return nil }
        guard let value = parse(text) else { throw UsageError("\(name) \(text): expected \(what)") }
        return value
    }

    /// Every argument not consumed and not starting with `-`, in order; consumes them.
    mutating func positionals() -> [String] {
        var out: [String] = []
        for i in items.indices where !consumed[i] && (!items[i].hasPrefix("-") || items[i] == "-") {
            consumed[i] = true
            out.append(items[i])
        }
        return out
    }

    /// Fails on anything not consumed.
    func finish() throws(UsageError) {
        if let i = items.indices.first(where: { !consumed[$0] }) {
            throw UsageError(items[i].hasPrefix("-") ? "unknown option \(items[i])" : "unexpected argument \(items[i])")
        }
    }
}
