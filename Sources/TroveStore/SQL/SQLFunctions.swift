import Foundation
import GRDB
import GRDBSQLite
import TroveModel

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
/// | collation `trove_localized` | ``PredicateText/localizedStandardCompare(_:_:)`` |
/// | collation `trove_decimal` | decimal text by numeric value |
enum SQLFunctions {
    static func register(on connection: SQLiteConnection?) {
        sqlite3_create_function_v2(connection, "trove_fold", 2, deterministic, nil, fold, nil, nil, nil)
        for test in StringTest.allCases {
            sqlite3_create_function_v2(connection, test.functionName, 3, deterministic,
                                       UnsafeMutableRawPointer(bitPattern: test.rawValue), stringTest, nil, nil, nil)
        }
        sqlite3_create_collation_v2(connection, "trove_localized", SQLITE_UTF8, nil, localizedCollation, nil)
        sqlite3_create_collation_v2(connection, "trove_decimal", SQLITE_UTF8, nil, decimalCollation, nil)
    }

    private static let deterministic = SQLITE_UTF8 | SQLITE_DETERMINISTIC

    // MARK: Functions

    private static let fold: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let text = text(arguments[0]) else { return sqlite3_result_null(context) }
        var folded = PredicateText.fold(text, options: options(arguments[1]))
        folded.withUTF8 { utf8 in
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

        func run(_ value: String, _ operand: String, _ options: StringOptions) -> Bool {
            switch self {
            case .contains: PredicateText.contains(value, operand, options: options)
            case .beginsWith: PredicateText.hasPrefix(value, operand, options: options)
            case .endsWith: PredicateText.hasSuffix(value, operand, options: options)
            case .like: PredicateText.like(value, pattern: operand, options: options)
            case .matches: PredicateText.matches(value, regex: operand, options: options)
            }
        }
    }

    /// `trove_<operator>(text, operand, options)`: 1, 0, or NULL when either string is NULL.
    private static let stringTest: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let test = StringTest(rawValue: Int(bitPattern: sqlite3_user_data(context))),
              let value = text(arguments[0]), let operand = text(arguments[1]) else { return sqlite3_result_null(context) }
        sqlite3_result_int(context, test.run(value, operand, options(arguments[2])) ? 1 : 0)
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
