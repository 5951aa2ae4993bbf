import Foundation

/// A format's tree with a placeholder for each argument, parsed once and kept: an app fetches
/// with the same few formats again and again (`id == %@`), and parsing one took a tenth of a
/// fetch by unique key. Formats whose tree depends on their arguments' values (`%K`, `CAST`)
/// have none and are parsed every time.
package final class ParsedFormat: Sendable {
    /// The tree, each argument's place a ``ObjectPredicate/Expression/variable(_:)`` named
    /// ``placeholder(_:)`` (no `$NAME` variable can have that name).
    private let root: ObjectPredicate.Node
    /// The specifier of each argument, in order (`@`, `d`, `f`, …).
    private let specifiers: [String]

    private init(root: ObjectPredicate.Node, specifiers: [String]) {
        self.root = root
        self.specifiers = specifiers
    }

    /// The formats parsed last, each with its parsed form, or `nil` for one that has none.
    private static let cache = Locked<[String: ParsedFormat?]>([:])

    /// The parsed form of `format`, parsed now if it was not yet; `nil` when it has none.
    static func parsed(_ format: String) -> ParsedFormat? {
        let last = LastFormat.ofThisThread
        if let last, last.format == format { return last.parsed }
        let parsed: ParsedFormat?
        last?.sharedLookups += 1
        if let kept = cache.withLock({ $0[format] }) {
            parsed = kept
        } else {
            parsed = make(format)
            cache.withLock { cache in
                if cache.count >= 256 { cache.removeAll() }
                cache[format] = parsed
            }
        }
        last?.format = format
        last?.parsed = parsed
        return parsed
    }

    private static func make(_ format: String) -> ParsedFormat? {
        guard let tokens = try? PredicateLexer.tokens(of: format) else { return nil }
        var specifiers: [String] = []
        for token in tokens {
            guard case .specifier(let letters) = token.kind else { continue }
            if letters == "K" { return nil }
            specifiers.append(letters)
        }
        // A format that does not parse with placeholders (a syntax error, an argument in a
        // CAST) is parsed with its arguments every time, which says what is wrong.
        var parser = PredicateParser(tokens: tokens, format: format, placeholders: specifiers.count)
        guard let root = try? parser.parse() else { return nil }
        return ParsedFormat(root: root, specifiers: specifiers)
    }

    /// How many times this thread looked a format up in the shared cache (for tests).
    static var sharedLookupsOnThisThread: Int { LastFormat.ofThisThread?.sharedLookups ?? 0 }

    /// The name of the placeholder of argument `index`.
    static func placeholder(_ index: Int) -> String { "%\(index)" }

    /// The tree with `arguments` in their places; `nil` when they are not what the format's
    /// specifiers take (too few, too many, or of the wrong kind): parsing them says why.
    func root(with arguments: [PredicateArgumentValue]) -> ObjectPredicate.Node? {
        guard arguments.count == specifiers.count else { return nil }
        var expressions: [ObjectPredicate.Expression] = []
        expressions.reserveCapacity(arguments.count)
        for (argument, specifier) in zip(arguments, specifiers) {
            guard let expression = PredicateParser.expression(of: argument, specifier: specifier) else { return nil }
            expressions.append(expression)
        }
        return root.substituting { name in
            guard name.utf8.first == UInt8(ascii: "%"), let index = Int(name.dropFirst()), index < expressions.count else { return nil }
            return expressions[index]
        }
    }
}

/// The format a thread parsed last, and its parsed form, kept by that thread alone (a
/// thread-specific value, released when the thread ends): a thread fetching with one format
/// again and again finds it here without the shared cache's lock and hashing (a measurable part
/// of a fetch by unique key: `Benchmarks/README.md`, fifth round).
private final class LastFormat {
    var format: String?
    var parsed: ParsedFormat?
    /// How many times the thread looked in the shared cache (for tests).
    var sharedLookups = 0

    /// This thread's; `nil` when the system has no thread-specific key left to give.
    static var ofThisThread: LastFormat? {
        guard let key else { return nil }
        if let kept = pthread_getspecific(key) { return Unmanaged<LastFormat>.fromOpaque(kept).takeUnretainedValue() }
        let made = Unmanaged.passRetained(LastFormat())
        guard pthread_setspecific(key, made.toOpaque()) == 0 else {
            made.release()
            return nil
        }
        return made.takeUnretainedValue()
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { kept in
            // (A non-optional pointer on Darwin, an optional one on Linux.)
            guard let kept = kept as UnsafeMutableRawPointer? else { return }
            Unmanaged<LastFormat>.fromOpaque(kept).release()
        }
        return made == 0 ? key : nil
    }()
}
