import Foundation

extension ObjectPredicate {
    /// Parses a predicate in Apple's format-string language, binding format arguments in order.
    ///
    /// ```swift
    /// try ObjectPredicate(format: "name CONTAINS[c] %@ AND ANY photos.views > %d", "ada", 100)
    /// try ObjectPredicate(format: "%K IN %@", "whoTook.name", ["Ada", "Grace"])
    /// ```
    /// `%@` takes any value (an array for `IN`/`BETWEEN`), `%d %i %ld` an integer, `%f` a number,
    /// `%s` a string, `%K` a key path given as a `String`. Keywords are case-insensitive; a key
    /// that is a reserved word is written `#first` or passed with `%K`.
    /// - Throws: ``ObjectPredicateError`` (``ObjectPredicateError/Code/syntax`` with the column, or
    ///   ``ObjectPredicateError/Code/argument`` for missing, extra or ill-typed arguments).
    public init(format: String, _ arguments: any PredicateArgument...) throws(ObjectPredicateError) {
        try self.init(format: format, arguments: arguments)
    }

    /// Parses a predicate, binding the format arguments of an array (see ``init(format:_:)``).
    /// - Throws: ``ObjectPredicateError``.
    public init(format: String, arguments: [any PredicateArgument]) throws(ObjectPredicateError) {
        let values = arguments.map(\.predicateArgumentValue)
        // A format parsed before: its tree, with these arguments in their places.
        if let parsed = ParsedFormat.parsed(format), let root = parsed.root(with: values) {
            self.init(root: root, format: format)
            return
        }
        do {
            var parser = try PredicateParser(format: format, arguments: values)
            self.init(root: try parser.parse(), format: format)
        } catch {
            throw error.located(in: format)
        }
    }
}

/// A recursive-descent parser over ``PredicateToken``s. Precedence, loosest first: `OR`, `AND`,
/// `NOT`, comparison.
struct PredicateParser {
    /// Apple's reserved words: never keys unless written with `#` or given with `%K`.
    /// Whether `name` is a reserved word, in any case.
    static func isReserved(_ name: String) -> Bool {
        reservedWords.contains { PredicateToken.spells(name, $0) }
    }

    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI",
        "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE",
        "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST",
        "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    private static let keywordOperators: [String: ObjectPredicate.Operator] = [
        "BETWEEN": .between, "IN": .in, "CONTAINS": .contains, "BEGINSWITH": .beginsWith,
        "ENDSWITH": .endsWith, "LIKE": .like, "MATCHES": .matches,
    ]
    private static let symbolOperators: [String: ObjectPredicate.Operator] = [
        "==": .equal, "!=": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
    ]

    private let tokens: [PredicateToken]
    /// The text parsed, kept by each comparison to locate its errors.
    private let format: String
    private var position = 0
    private let arguments: [PredicateArgumentValue]
    private var argumentIndex = 0
    /// The `SUBQUERY` variables in scope, innermost last.
    private var scope: [String] = []
    /// How deep `NOT`, parentheses, lists and `SUBQUERY`s nest here; bounded by
    /// ``PredicateLimits/maximumTextDepth`` so that hostile input cannot exhaust the stack of the
    /// parser, the checker or the evaluators.
    private var depth = 0

    /// When parsing a ``ParsedFormat``: arguments are not read, each gets a placeholder.
    private let placeholders: Bool

    init(format: String, arguments: [PredicateArgumentValue]) throws(ObjectPredicateError) {
        self.tokens = try PredicateLexer.tokens(of: format)
        self.format = format
        self.arguments = arguments
        self.placeholders = false
    }

    /// A parser of `tokens` (of `format`) giving `count` arguments placeholders.
    init(tokens: [PredicateToken], format: String, placeholders count: Int) {
        self.tokens = tokens
        self.format = format
        self.arguments = Array(repeating: .value(.null), count: count)
        self.placeholders = true
    }

    mutating func parse() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        if current.kind == .end {
            throw syntax("the predicate is empty (write TRUEPREDICATE to match everything)", at: current)
        }
        let node = try orExpression()
        guard current.kind == .end else {
            throw syntax("unexpected '\(current.text)' after a complete condition (join conditions with AND or OR)", at: current)
        }
        guard argumentIndex == arguments.count else {
            throw ObjectPredicateError(.argument, "\(arguments.count) argument\(arguments.count == 1 ? "" : "s") given, but the format uses \(argumentIndex)")
        }
        return node
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    private mutating func advance() -> PredicateToken {
        let token = current
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private func syntax(_ message: String, at token: PredicateToken) -> ObjectPredicateError {
        ObjectPredicateError(.syntax, message, column: token.column)
    }

    /// "found 'x'" or "but the predicate ends", for messages.
    private func found(_ token: PredicateToken) -> String {
        token.kind == .end ? "but the predicate ends" : "found '\(token.text)'"
    }

    private mutating func expect(_ symbol: String, _ message: @autoclosure () -> String) throws(ObjectPredicateError) {
        guard current.isSymbol(symbol) else { throw syntax("\(message()), \(found(current))", at: current) }
        _ = advance()
    }

    // MARK: Conditions

    private mutating func orExpression() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        var parts = [try andExpression()]
        while current.isKeyword("OR") || current.isSymbol("||") {
            let joiner = advance()
            try requireCondition(after: joiner)
            parts.append(try andExpression())
        }
        guard parts.count > 1 else { return parts[0] }
        return .or(parts.flatMap { if case .or(let inner) = $0 { inner } else { [$0] } })
    }

    private mutating func andExpression() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        var parts = [try notExpression()]
        while current.isKeyword("AND") || current.isSymbol("&&") {
            let joiner = advance()
            try requireCondition(after: joiner)
            parts.append(try notExpression())
        }
        guard parts.count > 1 else { return parts[0] }
        return .and(parts.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } })
    }

    /// Counts one more level of nesting at `token`; pair with `depth -= 1`.
    private mutating func nest(at token: PredicateToken) throws(ObjectPredicateError) {
        depth += 1
        guard depth <= PredicateLimits.maximumTextDepth else {
            throw ObjectPredicateError(.tooLarge, PredicateLimits.textNestingMessage, column: token.column)
        }
    }

    private mutating func notExpression() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        if current.isKeyword("NOT") || current.isSymbol("!") {
            let joiner = advance()
            try requireCondition(after: joiner)
            try nest(at: joiner)
            defer { depth -= 1 }
            return .not(try notExpression())
        }
        return try primary()
    }

    private func requireCondition(after token: PredicateToken) throws(ObjectPredicateError) {
        guard current.kind == .end else { return }
        throw syntax("expected a condition after '\(token.text)', \(found(current))", at: current)
    }

    private mutating func primary() throws(ObjectPredicateError) -> ObjectPredicate.Node {
        if current.isSymbol("(") {
            let open = advance()
            try nest(at: open)
            defer { depth -= 1 }
            let node = try orExpression()
            try expect(")", "expected ')' to close the '(' at column \(open.column)")
            return node
        }
        if current.isKeyword("TRUEPREDICATE") { _ = advance(); return .constant(true) }
        if current.isKeyword("FALSEPREDICATE") { _ = advance(); return .constant(false) }
        return .comparison(try comparison())
    }

    private mutating func comparison() throws(ObjectPredicateError) -> ObjectPredicate.Comparison {
        var modifier = ObjectPredicate.Modifier.direct
        if current.isKeyword("ANY") || current.isKeyword("SOME") {
            modifier = .any
        } else if current.isKeyword("ALL") {
            modifier = .all
        } else if current.isKeyword("NONE") {
            modifier = .none
        }
        if modifier != .direct { _ = advance() }
        let leftStart = position
        let left = try expression(after: modifier == .direct ? nil : modifier.rawValue)
        let opToken = current
        let op: ObjectPredicate.Operator
        if case .symbol(let symbol) = opToken.kind, let symbolOp = Self.symbolOperators[symbol] {
            op = symbolOp
        } else if case .identifier(let word, escaped: false) = opToken.kind, let wordOp = Self.keywordOperators[word.uppercased()] {
            op = wordOp
        } else {
            let leftText = tokens[leftStart..<position].map(\.text).joined()
            throw syntax("expected an operator (=, !=, <, >, CONTAINS, IN, …) after '\(leftText)', \(found(opToken))", at: opToken)
        }
        _ = advance()
        let options = try stringOptions()
        let right = try expression(after: opToken.text)
        return ObjectPredicate.Comparison(left, op, right, modifier: modifier, options: options, column: opToken.column, source: format)
    }

    private mutating func stringOptions() throws(ObjectPredicateError) -> StringOptions {
        guard current.isSymbol("[") else { return [] }
        _ = advance()
        let token = advance()
        var options: StringOptions = []
        guard case .identifier(let letters, _) = token.kind else {
            throw syntax("expected options c, d or cd inside '[ ]', \(found(token))", at: token)
        }
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            default: throw syntax("unknown option '\(letter)' (use [c], [d] or [cd])", at: token)
            }
        }
        try expect("]", "expected ']' after the options")
        return options
    }

    // MARK: Operands

    fileprivate enum PathItem {
        case key(String)
        case function(String, column: Int)
    }

    /// One operand; `context` names what it follows, for "expected a value after …".
    private mutating func expression(after context: String?) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        let token = current
        // The start of a message, made only for one.
        func expected() -> String { context.map { "expected a value after '\($0)'" } ?? "expected a key path or a value" }
        switch token.kind {
        case .string(let text):
            _ = advance()
            return .value(.string(text))
        case .number(let text):
            _ = advance()
            return .value(try number(text, negative: false, at: token))
        case .symbol("-"), .symbol("+"):
            _ = advance()
            guard case .number(let text) = current.kind else {
                throw syntax("expected a number after '\(token.text)' (arithmetic is not supported), \(found(current))", at: current)
            }
            let numberToken = advance()
            return .value(try number(text, negative: token.isSymbol("-"), at: numberToken))
        case .symbol("{"):
            return try list()
        case .variable(let name):
            _ = advance()
            if scope.contains(name) {
                return try keyPathTail(variable: name, items: [], column: token.column)
            }
            if current.isSymbol(".") {
                throw syntax("$\(name) is not a SUBQUERY variable, so it cannot start a key path", at: token)
            }
            return .variable(name)
        case .specifier(let letters):
            _ = advance()
            let argument = try nextArgument(for: token)
            if letters == "K" {
                return try keyPathTail(variable: nil, items: try splicedKeyPath(argument, at: token), column: token.column)
            }
            if placeholders { return .variable(ParsedFormat.placeholder(argumentIndex - 1)) }
            return try value(of: argument, specifier: letters, at: token)
        case .identifier(let name, let escaped):
            if escaped || !Self.isReserved(name) {
                _ = advance()
                return try keyPathTail(variable: nil, items: [.key(name)], column: token.column)
            }
            return try keywordOperand(name.uppercased(), token: token, expected: expected())
        case .function(let name):
            throw syntax("@\(name) must follow a to-many key path, as in photos.@\(name)", at: token)
        default:
            throw syntax("\(expected()), \(found(token))", at: token)
        }
    }

    private mutating func keywordOperand(_ word: String, token: PredicateToken, expected: String) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        switch word {
        case "TRUE", "YES": _ = advance(); return .value(.boolean(true))
        case "FALSE", "NO": _ = advance(); return .value(.boolean(false))
        case "NIL", "NULL": _ = advance(); return .value(.null)
        case "SUBQUERY": return try subquery()
        case "SELF":
            _ = advance()
            return try keyPathTail(variable: nil, items: [], column: token.column)
        case "CAST": return try cast()
        case "AND", "OR", "NOT", "IN", "BETWEEN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
             "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE":
            throw syntax("\(expected), \(found(token))", at: token)
        default:
            throw syntax("'\(token.text)' is a reserved word: write #\(token.text) for a key of that name", at: token)
        }
    }

    private mutating func list() throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        let open = advance()
        try nest(at: open)
        defer { depth -= 1 }
        var items: [ObjectPredicate.Expression] = []
        if current.isSymbol("}") { _ = advance(); return .list(items) }
        while true {
            items.append(try expression(after: items.isEmpty ? "{" : ","))
            if current.isSymbol(",") { _ = advance(); continue }
            try expect("}", "expected ',' or '}' to close the '{' at column \(open.column)")
            return .list(items)
        }
    }

    /// The `.key`, `.@count`, `.@avg.key` that follow the start of a key path.
    private mutating func keyPathTail(variable: String?, items start: [PathItem], column: Int) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        var items = start
        while current.isSymbol(".") {
            let dot = advance()
            let token = current
            switch token.kind {
            case .identifier(let name, let escaped):
                guard escaped || !Self.isReserved(name) else {
                    throw syntax("'\(name)' is a reserved word: write #\(name) for a key of that name", at: token)
                }
                _ = advance()
                items.append(.key(name))
            case .function(let name):
                _ = advance()
                items.append(.function(name, column: token.column))
            case .specifier("K"):
                _ = advance()
                items += try splicedKeyPath(try nextArgument(for: token), at: token)
            default:
                throw syntax("expected a key after '.', \(found(token))", at: dot.column < token.column ? token : dot)
            }
        }
        return try assemble(items, variable: variable, collection: nil, column: column)
    }

    /// Builds a key path or an aggregate from path items; `collection` is a `SUBQUERY` already read.
    private func assemble(
        _ items: [PathItem], variable: String?, collection: ObjectPredicate.Expression?, column: Int
    ) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        guard let functionIndex = items.firstIndex(where: { if case .function = $0 { true } else { false } }),
              case .function(let name, let functionColumn) = items[functionIndex] else {
            return .keyPath(ObjectPredicate.KeyPath(items.keys, variable: variable, column: column))
        }
        guard let function = ObjectPredicate.Aggregate(rawValue: "@" + name) else {
            throw ObjectPredicateError(.syntax, "unknown function @\(name) (use @count, @sum, @avg, @min or @max)", column: functionColumn)
        }
        let before = Array(items[..<functionIndex])
        let after = Array(items[(functionIndex + 1)...])
        if after.contains(where: { if case .function = $0 { true } else { false } }) {
            throw ObjectPredicateError(.syntax, "only one function may appear in a key path", column: functionColumn)
        }
        if function == .count, !after.isEmpty {
            throw ObjectPredicateError(.syntax, "@count takes no key after it", column: functionColumn)
        }
        if function != .count, after.isEmpty {
            throw ObjectPredicateError(.syntax, "\(function.rawValue) needs the key to aggregate, as in photos.\(function.rawValue).views", column: functionColumn)
        }
        let source: ObjectPredicate.Expression
        if let collection {
            guard before.isEmpty else {
                throw ObjectPredicateError(.syntax, "a SUBQUERY must be followed by a function such as .@count", column: column)
            }
            source = collection
        } else {
            guard !before.isEmpty || variable != nil else {
                throw ObjectPredicateError(.syntax, "\(function.rawValue) must follow a to-many key path", column: functionColumn)
            }
            source = .keyPath(ObjectPredicate.KeyPath(before.keys, variable: variable, column: column))
        }
        return .aggregate(function, of: source, key: after.keys)
    }

    private mutating func subquery() throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        let start = advance()
        try nest(at: start)
        defer { depth -= 1 }
        try expect("(", "expected '(' after SUBQUERY")
        let collectionToken = current
        let collection: ObjectPredicate.KeyPath
        switch try expression(after: "SUBQUERY(") {
        case .keyPath(let path): collection = path
        default: throw syntax("the first part of a SUBQUERY must be a to-many key path", at: collectionToken)
        }
        try expect(",", "expected ',' after the SUBQUERY's key path")
        guard case .variable(let variable) = current.kind else {
            throw syntax("expected a variable such as $x after the SUBQUERY's key path, \(found(current))", at: current)
        }
        _ = advance()
        try expect(",", "expected ',' after the SUBQUERY's variable")
        scope.append(variable)
        let predicate = try orExpression()
        scope.removeLast()
        try expect(")", "expected ')' to close the SUBQUERY at column \(start.column)")
        var items: [PathItem] = []
        while current.isSymbol(".") {
            _ = advance()
            let token = advance()
            switch token.kind {
            case .function(let name): items.append(.function(name, column: token.column))
            case .identifier(let name, _): items.append(.key(name))
            default: throw syntax("expected a function such as @count after '.', \(found(token))", at: token)
            }
        }
        guard case .function = items.first else {
            throw syntax("a SUBQUERY is a collection: follow it with .@count, as in SUBQUERY(…).@count > 0", at: start)
        }
        let subquery = ObjectPredicate.Expression.subquery(collection: collection, variable: variable, predicate: predicate)
        return try assemble(items, variable: nil, collection: subquery, column: start.column)
    }

    /// `CAST(seconds, "NSDate")`: a date as seconds since 2001-01-01 UTC (how dates print).
    private mutating func cast() throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        let start = advance()
        let usage = "CAST supports only CAST(<seconds since 2001-01-01>, \"NSDate\")"
        try expect("(", "expected '(' after CAST")
        guard case .value(let seconds) = try expression(after: "CAST("), let interval = seconds.numericDouble else {
            throw syntax(usage, at: start)
        }
        try expect(",", usage)
        guard case .string(let type) = current.kind, type == "NSDate" else { throw syntax(usage, at: current) }
        _ = advance()
        try expect(")", "expected ')' to close the CAST")
        return .value(.date(Date(timeIntervalSinceReferenceDate: interval)))
    }

    // MARK: Values and arguments

    private func number(_ text: String, negative: Bool, at token: PredicateToken) throws(ObjectPredicateError) -> AttributeValue {
        let sign = negative ? "-" : ""
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
            guard let value = Int64(sign + text.dropFirst(2), radix: radix) else {
                throw syntax("the number \(sign)\(text) is too large", at: token)
            }
            return .integer(value)
        }
        if let integer = Int64(sign + text) { return .integer(integer) }
        guard let decimal = Decimal(string: sign + text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN,
              Double(decimal.description) == Double(sign + text) else {
            // Beyond a decimal's range (exponents past ±127, such as 1e300 or 1e-300): a double,
            // unless it overflows or underflows that too.
            if let double = Double(sign + text), double.isFinite, double != 0 {
                return .double(double)
            }
            throw syntax("the number \(sign)\(text) is out of range", at: token)
        }
        // `1e3` and `2.0` are integers; `0.1` stays an exact decimal.
        return Int64(decimal.description).map(AttributeValue.integer) ?? .decimal(decimal)
    }

    private mutating func nextArgument(for token: PredicateToken) throws(ObjectPredicateError) -> PredicateArgumentValue {
        guard argumentIndex < arguments.count else {
            throw ObjectPredicateError(.argument, "missing argument for \(token.text) (it is argument \(argumentIndex + 1); \(arguments.count) given)", column: token.column)
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    private func splicedKeyPath(_ argument: PredicateArgumentValue, at token: PredicateToken) throws(ObjectPredicateError) -> [PathItem] {
        guard case .value(.string(let path)) = argument else {
            throw ObjectPredicateError(.argument, "%K needs a key path given as a String (argument \(argumentIndex))", column: token.column)
        }
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw ObjectPredicateError(.argument, "the %K argument \"\(path)\" is not a key path", column: token.column)
        }
        return parts.map { $0.hasPrefix("@") ? .function(String($0.dropFirst()).lowercased(), column: token.column) : .key($0) }
    }

    /// What `argument` given for `%specifier` stands for; `nil` when that specifier does not
    /// take it.
    static func expression(of argument: PredicateArgumentValue, specifier: String) -> ObjectPredicate.Expression? {
        switch (specifier, argument) {
        case ("@", _),
             ("s", .value(.string)), ("f", .value(.double)), ("lf", .value(.double)),
             ("f", .value(.decimal)), ("lf", .value(.decimal)):
            argument.expression
        case ("f", .value(.integer(let i))), ("lf", .value(.integer(let i))):
            .value(.double(Double(i)))
        case ("s", _), ("f", _), ("lf", _):
            nil
        case (_, .value(.integer)):
            argument.expression
        default:
            nil
        }
    }

    private func value(of argument: PredicateArgumentValue, specifier: String, at token: PredicateToken) throws(ObjectPredicateError) -> ObjectPredicate.Expression {
        if let expression = Self.expression(of: argument, specifier: specifier) { return expression }
        let kind = switch specifier {
        case "s": "a string"
        case "f", "lf": "a number"
        default: "an integer"
        }
        let got = switch argument {
        case .value(let v): v.kindWithArticle
        case .list: "a list"
        case .object: "an object"
        }
        throw ObjectPredicateError(.argument, "\(token.text) needs \(kind), got \(got) (argument \(argumentIndex))", column: token.column)
    }
}

private extension [PredicateParser.PathItem] {
    var keys: [String] { compactMap { if case .key(let k) = $0 { k } else { nil } } }
}

extension AttributeValue {
    /// "a string", "an integer", "nil", for messages.
    var kindWithArticle: String {
        if isNull { return "nil" }
        return ("aeiou".contains(kindName.prefix(1)) ? "an " : "a ") + kindName
    }

    /// The value as a `Double` when it is a number.
    var numericDouble: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        // The decimal's exact text, rounded once (NSDecimalNumber's doubleValue can be off by
        // an ulp, so that `rating = 0.30000000000000004` would miss 0.1 + 0.2).
        case .decimal(let d): Double(d.description) ?? NSDecimalNumber(decimal: d).doubleValue
        default: nil
        }
    }
}
