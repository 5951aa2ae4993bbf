
/// A token of the predicate language, with the column where it starts.
struct PredicateToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A key or keyword; `escaped` when written with `#` (then never a keyword).
        case identifier(String, escaped: Bool)
        /// A number literal without sign, as written (`42`, `0.1`, `1e3`, `0x1F`).
        case number(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// `$NAME`.
        case variable(String)
        /// `%@`, `%K`, `%d`, …: the letters after `%`.
        case specifier(String)
        /// `@count`, `@sum`, …: the name after `@`, lowercased.
        case function(String)
        /// An operator or punctuation, canonical (`=` is `==`, `<>` is `!=`, `=<` is `<=`).
        case symbol(String)
        case end
    }

    var kind: Kind
    /// 1-based column, in Unicode scalars.
    var column: Int
    /// The text as written, for messages.
    var text: String

    /// The identifier's text when this is an unescaped identifier equal (ignoring case) to `keyword`.
    func isKeyword(_ keyword: String) -> Bool {
        guard case .identifier(let name, escaped: false) = kind else { return false }
        return Self.spells(name, keyword)
    }

    /// Whether `name` is `keyword` (ASCII capitals) in any case: compares bytes, folding a-z,
    /// without making an uppercased string.
    static func spells(_ name: String, _ keyword: String) -> Bool {
        name.utf8.count == keyword.utf8.count && zip(name.utf8, keyword.utf8).allSatisfy { letter, capital in
            letter == capital || (letter >= UInt8(ascii: "a") && letter <= UInt8(ascii: "z") && letter - 32 == capital)
        }
    }

    func isSymbol(_ symbol: String) -> Bool { kind == .symbol(symbol) }
}

/// Splits a predicate's text into tokens; throws a syntax error at the first bad character.
struct PredicateLexer {
    /// Scalars, not characters: a quote followed by a combining mark must still close a string.
    private let characters: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        characters = Array(text.unicodeScalars)
    }

    /// The tokens of the formats read last: an app fetches with the same few formats again and
    /// again (`id == %@`), and the tokens do not depend on the arguments.
    private static let cache = Locked<[String: [PredicateToken]]>([:])

    /// Every token, ending with ``PredicateToken/Kind/end``.
    static func tokens(of text: String) throws(ObjectPredicateError) -> [PredicateToken] {
        if let cached = cache.withLock({ $0[text] }) { return cached }
        let tokens = try scan(text)
        cache.withLock { cache in
            if cache.count >= 256 { cache.removeAll() }
            cache[text] = tokens
        }
        return tokens
    }

    private static func scan(_ text: String) throws(ObjectPredicateError) -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private var current: Unicode.Scalar? { index < characters.count ? characters[index] : nil }
    private func peek(_ offset: Int = 1) -> Unicode.Scalar? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    private func error(_ message: String, at position: Int) -> ObjectPredicateError {
        ObjectPredicateError(.syntax, message, column: position + 1)
    }

    private mutating func next() throws(ObjectPredicateError) -> PredicateToken {
        while let c = current, c.properties.isWhitespace { index += 1 }
        let start = index
        guard let c = current else { return PredicateToken(kind: .end, column: start + 1, text: "") }
        let kind: PredicateToken.Kind
        switch c {
        case "\"", "'":
            kind = .string(try string(quote: c))
        case "0"..."9":
            kind = .number(try number())
        case "$":
            index += 1
            guard let name = identifier() else { throw error("expected a variable name after '$'", at: start) }
            kind = .variable(name)
        case "#":
            index += 1
            guard let name = identifier() else { throw error("expected a key after '#'", at: start) }
            kind = .identifier(name, escaped: true)
        case "@":
            index += 1
            guard let name = identifier() else { throw error("expected a function such as @count after '@'", at: start) }
            kind = .function(name.lowercased())
        case "%":
            kind = .specifier(try specifier())
        case _ where c.isIdentifierStart:
            guard let name = identifier() else { throw error("unexpected character '\(c)'", at: start) }
            kind = .identifier(name, escaped: false)
        default:
            kind = .symbol(try symbol())
        }
        return PredicateToken(kind: kind, column: start + 1, text: String(String.UnicodeScalarView(characters[start..<index])))
    }

    private mutating func identifier() -> String? {
        guard let first = current, first.isIdentifierStart else { return nil }
        var name = ""
        while let c = current, c.isIdentifierStart || c.properties.numericType != nil {
            name.unicodeScalars.append(c)
            index += 1
        }
        return name
    }

    private mutating func number() throws(ObjectPredicateError) -> String {
        let start = index
        var text = ""
        func isDigit(_ c: Unicode.Scalar?, radix: Int) -> Bool {
            guard let value = c?.asciiHexValue else { return false }
            return value < radix
        }
        if current == "0", let base = peek(), "xXoObB".unicodeScalars.contains(base) {
            let radix = "xX".unicodeScalars.contains(base) ? 16 : "oO".unicodeScalars.contains(base) ? 8 : 2
            text = "0" + String(Character(base)).lowercased()
            index += 2
            guard isDigit(current, radix: radix) else {
                throw error("expected digits after '\(text)'", at: start)
            }
            while let c = current, isDigit(c, radix: radix) { text.unicodeScalars.append(c); index += 1 }
            return text
        }
        while let c = current, isDigit(c, radix: 10) { text.unicodeScalars.append(c); index += 1 }
        if current == ".", isDigit(peek(), radix: 10) {
            text.append(".")
            index += 1
            while let c = current, isDigit(c, radix: 10) { text.unicodeScalars.append(c); index += 1 }
        }
        if let e = current, e == "e" || e == "E" {
            var lookahead = 1
            if let sign = peek(), sign == "+" || sign == "-" { lookahead = 2 }
            if isDigit(peek(lookahead), radix: 10) {
                for _ in 0..<lookahead { if let c = current { text.unicodeScalars.append(c) }; index += 1 }
                while let c = current, isDigit(c, radix: 10) { text.unicodeScalars.append(c); index += 1 }
            }
        }
        return text
    }

    private mutating func string(quote: Unicode.Scalar) throws(ObjectPredicateError) -> String {
        let start = index
        index += 1
        var value = ""
        while true {
            guard let c = current else {
                throw error("unterminated string: add the closing \(quote)", at: start)
            }
            index += 1
            if c == quote { return value }
            guard c == "\\" else { value.unicodeScalars.append(c); continue }
            guard let escaped = current else {
                throw error("unterminated string: add the closing \(quote)", at: start)
            }
            let escapeStart = index - 1
            index += 1
            switch escaped {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\u{0}")
            case "\\", "'", "\"": value.unicodeScalars.append(escaped)
            case "u": value.unicodeScalars.append(try unicodeEscape(at: escapeStart))
            default: throw error("unknown escape '\\\(escaped)' in a string (use \\\\ for a backslash)", at: escapeStart)
            }
        }
    }

    /// The scalar of `\uXXXX` (the `\u` already read), joining a surrogate pair `\uD83D\uDE00`.
    private mutating func unicodeEscape(at escapeStart: Int) throws(ObjectPredicateError) -> Unicode.Scalar {
        let bad = error("'\\u' must be followed by four hex digits naming a Unicode scalar", at: escapeStart)
        guard let high = hex4() else { throw bad }
        if (0xD800...0xDBFF).contains(high) {
            guard current == "\\", peek() == "u" else { throw bad }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low),
                  let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else { throw bad }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw bad }
        return scalar
    }

    private mutating func hex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = current?.asciiHexValue else { return nil }
            value = value * 16 + UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func specifier() throws(ObjectPredicateError) -> String {
        let start = index
        index += 1
        var letters = ""
        if let c = current, c == "@" || c == "K" {
            letters = String(Character(c))
            index += 1
        } else {
            while current == "l", letters.count < 2 { letters.append("l"); index += 1 }
            if let c = current, c.isASCII, c.properties.isAlphabetic { letters.unicodeScalars.append(c); index += 1 }
        }
        let known: Set<String> = ["@", "K", "d", "i", "u", "ld", "li", "lu", "lld", "lli", "llu", "f", "lf", "s"]
        guard known.contains(letters) else {
            throw error("unknown format specifier '%\(letters)' (use %@ for a value, %K for a key path)", at: start)
        }
        return letters
    }

    private mutating func symbol() throws(ObjectPredicateError) -> String {
        let start = index
        let c = characters[index]
        let two = peek().map { String(Character(c)) + String(Character($0)) } ?? ""
        let canonicalTwo: [String: String] = [
            "==": "==", "!=": "!=", "<>": "!=", "<=": "<=", "=<": "<=", ">=": ">=", "=>": ">=",
            "&&": "&&", "||": "||",
        ]
        if let canonical = canonicalTwo[two] {
            index += 2
            return canonical
        }
        index += 1
        switch c {
        case "=": return "=="
        case "<", ">", "!", "(", ")", "{", "}", ",", ".", "[", "]", "-", "+", "*", "/": return String(Character(c))
        default: throw error("unexpected character '\(c)'", at: start)
        }
    }
}

private extension Unicode.Scalar {
    var isIdentifierStart: Bool { properties.isAlphabetic || self == "_" }

    /// The value of an ASCII hex digit, or `nil`.
    var asciiHexValue: Int? {
        switch value {
        case 0x30...0x39: Int(value - 0x30)
        case 0x41...0x46: Int(value - 0x41 + 10)
        case 0x61...0x66: Int(value - 0x61 + 10)
        default: nil
        }
    }
}
