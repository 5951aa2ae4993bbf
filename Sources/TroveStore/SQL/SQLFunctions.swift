import Foundation
import GRDB
import GRDBSQLite
import TroveModel
import TrovePredicate

/// The SQLite functions and collations compiled queries call, registered on every connection.
///
/// Each runs the same ``PredicateText`` code the in-memory evaluator runs, so a predicate means
/// the same in both. Text is read with its byte length (strings may hold NUL).
///
/// | name | meaning |
/// |---|---|
/// | `trove_fold(text, options)` | ``PredicateText/fold(_:options:)`` |
/// | `trove_contains/beginswith/endswith(text, operand, options)` | 1, 0, or NULL when either is NULL |
/// | `trove_like(text, pattern, options)`, `trove_matches(text, regex, options)` | the same |
/// | aggregates `trove_sum_<kind>(value)`, `trove_avg_<kind>(value)` | ``PredicateAccumulator`` |
/// | collation `trove_localized` | ``PredicateText/localizedStandardCompare(_:_:)`` |
/// | collation `trove_decimal` | decimal text by numeric value |
enum SQLFunctions {
    static func register(on connection: SQLiteConnection?) {
        sqlite3_create_function_v2(connection, "trove_fold", 2, deterministic, nil, fold, nil, nil, nil)
        for test in StringTest.allCases {
            sqlite3_create_function_v2(connection, test.functionName, 3, deterministic,
                                       UnsafeMutableRawPointer(bitPattern: test.rawValue), stringTest, nil, nil, nil)
        }
        for function in [ObjectPredicate.Aggregate.sum, .avg] {
            for kind in PredicateAccumulator.Kind.allCases {
                let code = Aggregate(function: function, kind: kind)
                sqlite3_create_function_v2(connection, code.functionName, 1, deterministic,
                                           UnsafeMutableRawPointer(bitPattern: code.userData), nil, accumulateStep, accumulateFinal, nil)
            }
        }
        sqlite3_create_collation_v2(connection, "trove_localized", SQLITE_UTF8, nil, localizedCollation, nil)
        sqlite3_create_collation_v2(connection, "trove_decimal", SQLITE_UTF8, nil, decimalCollation, nil)
    }

    private static let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC

    // MARK: Functions

    private static let fold: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let text = text(arguments[0]) else { return sqlite3_result_null(context) }
        resultText(context, PredicateText.fold(text, options: options(arguments[1])))
    }

    /// Returns `text` (which may hold NUL) as the function's result.
    private static func resultText(_ context: OpaquePointer?, _ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress, !chars.isEmpty else {
                    // A zero-length text still needs a non-nil pointer, or SQLite returns NULL.
                    return sqlite3_result_text(context, "", 0, transient)
                }
                sqlite3_result_text(context, base, Int32(chars.count), transient)
            }
        }
    }

    /// The string operators, told apart by the function's user-data pointer (a C function
    /// cannot capture).
    private enum StringTest: Int, CaseIterable {
        case contains = 1, beginsWith, endsWith, like, matches

        var functionName: String {
            switch self {
            case .contains: "trove_contains"
            case .beginsWith: "trove_beginswith"
            case .endsWith: "trove_endswith"
            case .like: "trove_like"
            case .matches: "trove_matches"
            }
        }

        func run(_ value: String, _ operand: String, _ options: StringOptions) throws(ObjectPredicateError) -> Bool {
            switch self {
            case .contains: PredicateText.contains(value, operand, options: options)
            case .beginsWith: PredicateText.hasPrefix(value, operand, options: options)
            case .endsWith: PredicateText.hasSuffix(value, operand, options: options)
            case .like: PredicateText.like(value, pattern: operand, options: options)
            case .matches: try PredicateText.matches(value, regex: operand, options: options)
            }
        }
    }

    /// `trove_<operator>(text, operand, options)`: 1, 0, or NULL when either string is NULL.
    /// When the operator cannot answer (`MATCHES` whose engine gave up) the statement fails
    /// with the error's message after ``evaluationErrorPrefix``, which ``evaluationError(in:)``
    /// turns back into the ``ObjectPredicateError``.
    private static let stringTest: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let test = StringTest(rawValue: Int(bitPattern: sqlite3_user_data(context))),
              let value = text(arguments[0]), let operand = text(arguments[1]) else { return sqlite3_result_null(context) }
        do throws(ObjectPredicateError) {
            sqlite3_result_int(context, try test.run(value, operand, options(arguments[2])) ? 1 : 0)
        } catch {
            sqlite3_result_error(context, evaluationErrorPrefix + error.message, -1)
        }
    }

    /// Starts the SQLite error message of a predicate function that could not answer.
    private static let evaluationErrorPrefix = "trove: regex gave up: "

    /// The predicate error an SQLite error message carries, when a predicate function raised it.
    static func evaluationError(in message: String?) -> ObjectPredicateError? {
        guard let message, message.hasPrefix(evaluationErrorPrefix) else { return nil }
        return ObjectPredicateError(.regexGaveUp, String(message.dropFirst(evaluationErrorPrefix.count)))
    }

    // MARK: Aggregates

    /// `@sum` or `@avg` keeping its total as a kind of number; one SQL function each, told apart
    /// by the user-data pointer (the final step gets no arguments to read the kind from).
    struct Aggregate {
        let function: ObjectPredicate.Aggregate
        let kind: PredicateAccumulator.Kind

        /// `trove_sum_integer`, `trove_avg_decimal`, …
        var functionName: String { "trove_\(function == .avg ? "avg" : "sum")_\(kind.rawValue)" }

        var userData: Int {
            (PredicateAccumulator.Kind.allCases.firstIndex(of: kind) ?? 0) + (function == .avg ? 16 : 0) + 1
        }

        init(function: ObjectPredicate.Aggregate, kind: PredicateAccumulator.Kind) {
            self.function = function
            self.kind = kind
        }

        init(userData: Int) {
            let kinds = PredicateAccumulator.Kind.allCases
            function = userData - 1 >= 16 ? .avg : .sum
            kind = kinds[min(max((userData - 1) % 16, 0), kinds.count - 1)]
        }
    }

    /// The accumulator of one aggregate evaluation, kept alive from its first step to its final
    /// call through a pointer in SQLite's aggregate context.
    private final class AccumulatorBox {
        var accumulator: PredicateAccumulator
        init(_ accumulator: PredicateAccumulator) { self.accumulator = accumulator }
    }

    private static func accumulatorSlot(_ context: OpaquePointer?, create: Bool) -> UnsafeMutablePointer<UnsafeMutableRawPointer?>? {
        let size = create ? Int32(MemoryLayout<UnsafeMutableRawPointer?>.size) : 0
        return sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    private static let accumulateStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let slot = accumulatorSlot(context, create: true) else { return sqlite3_result_error_nomem(context) }
        let box: AccumulatorBox
        if let existing = slot.pointee {
            box = Unmanaged<AccumulatorBox>.fromOpaque(existing).takeUnretainedValue()
        } else {
            let code = Aggregate(userData: Int(bitPattern: sqlite3_user_data(context)))
            box = AccumulatorBox(PredicateAccumulator(code.function, kind: code.kind))
            slot.pointee = Unmanaged.passRetained(box).toOpaque()
        }
        box.accumulator.add(number(arguments[0]))
    }

    private static let accumulateFinal: @convention(c) (OpaquePointer?) -> Void = { context in
        let accumulator: PredicateAccumulator
        if let slot = accumulatorSlot(context, create: false), let pointer = slot.pointee {
            accumulator = Unmanaged<AccumulatorBox>.fromOpaque(pointer).takeRetainedValue().accumulator
            slot.pointee = nil
        } else {
            let code = Aggregate(userData: Int(bitPattern: sqlite3_user_data(context)))
            accumulator = PredicateAccumulator(code.function, kind: code.kind)
        }
        switch accumulator.result {
        case .integer(let i): sqlite3_result_int64(context, i)
        case .double(let d): sqlite3_result_double(context, d)
        case .decimal(let d): resultText(context, d.description)
        default: sqlite3_result_null(context)
        }
    }

    /// A number as a column holds it: integers, doubles, or decimals kept as text.
    private static func number(_ value: OpaquePointer?) -> AttributeValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: .double(sqlite3_value_double(value))
        case SQLITE_TEXT: text(value).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }.map { .decimal($0) } ?? .null
        default: .null
        }
    }

    // MARK: Collations

    private static let localizedCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, count1, bytes1, count2, bytes2 in
        let a = string(bytes1, count1), b = string(bytes2, count2)
        return result(PredicateText.localizedStandardCompare(a, b))
    }

    private static let decimalCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, count1, bytes1, count2, bytes2 in
        let a = string(bytes1, count1), b = string(bytes2, count2)
        let posix = Locale(identifier: "en_US_POSIX")
        guard let x = Decimal(string: a, locale: posix), let y = Decimal(string: b, locale: posix) else {
            return a.utf8.elementsEqual(b.utf8) ? 0 : (a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1)
        }
        return x == y ? 0 : (x < y ? -1 : 1)
    }

    // MARK: Helpers

    static func text(_ value: OpaquePointer?) -> String? {
        guard sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    static func options(_ value: OpaquePointer?) -> StringOptions {
        StringOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(value)))
    }

    private static func string(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
        guard let bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }

    private static func result(_ order: ComparisonResult) -> Int32 {
        switch order {
        case .orderedAscending: -1
        case .orderedSame: 0
        case .orderedDescending: 1
        }
    }

    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

}
