import Foundation

/// What the two baselines decode the payload into with `JSONDecoder`: plain structs whose
/// `init(from:)` handles the payload's messy types by hand, as an app without Trove would.
/// The coercions are the ones Trove applies to the same values (a string of digits for an
/// integer, a numeric string for a double, `0`/`1` and `"true"`/`"false"` for a boolean, ISO 8601
/// for a date); unknown keys are ignored by `JSONDecoder`.
struct PhotoRecord: Decodable {
    var id: Int64
    var title: String?
    var description: String?
    /// Seconds since 2001-01-01T00:00:00Z, as Trove stores dates.
    var uploadDate: Double?
    var views: Int64?
    var latitude: Double?
    var isPublic: Bool?
    var tags: String?
    var owner: OwnerRecord?

    enum CodingKeys: String, CodingKey {
        case id, title, description, uploadDate = "upload_date", views, latitude, isPublic = "is_public", tags, owner
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = try Lenient.int64(c, .id, stringFirst: true) else {
            throw DecodingError.keyNotFound(CodingKeys.id, .init(codingPath: c.codingPath, debugDescription: "a photo needs its id"))
        }
        self.id = id
        title = try c.decodeIfPresent(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        uploadDate = try Lenient.date(c, .uploadDate)
        views = try Lenient.int64(c, .views, stringFirst: false)
        latitude = try Lenient.double(c, .latitude)
        isPublic = try Lenient.bool(c, .isPublic)
        tags = try c.decodeIfPresent(String.self, forKey: .tags)
        owner = try c.decodeIfPresent(OwnerRecord.self, forKey: .owner)
    }
}

struct OwnerRecord: Decodable, Equatable {
    var id: String
    var name: String?
    var location: String?
}

/// Hand-written coercions for the baselines' `init(from:)`.
enum Lenient {
    static func int64<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K, stringFirst: Bool) throws -> Int64? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        if !stringFirst, let value = try? c.decode(Int64.self, forKey: key) { return value }
        if let text = try? c.decode(String.self, forKey: key) {
            guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "'\(text)' is not an integer")
            }
            return value
        }
        return try c.decode(Int64.self, forKey: key)
    }

    static func double<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Double? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        if let value = try? c.decode(Double.self, forKey: key) { return value }
        let text = try c.decode(String.self, forKey: key)
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "'\(text)' is not a number")
        }
        return value
    }

    static func bool<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Bool? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        if let value = try? c.decode(Bool.self, forKey: key) { return value }
        if let number = try? c.decode(Int64.self, forKey: key) {
            guard number == 0 || number == 1 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(number) is not a boolean")
            }
            return number == 1
        }
        switch try c.decode(String.self, forKey: key) {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        case let text: throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "'\(text)' is not a boolean")
        }
    }

    static func date<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Double? {
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
        let text = try c.decode(String.self, forKey: key)
        if let seconds = iso8601UTC(text) { return seconds }
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "'\(text)' is not an ISO 8601 date")
        }
        return date.timeIntervalSinceReferenceDate
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, the payload's form, read by hand (a formatter costs more than the
    /// rest of a record); seconds since 2001. `nil` for any other form.
    static func iso8601UTC(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { b -> Double? in
            guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A else { return nil }
            func number(_ from: Int, _ count: Int) -> Int? {
                var value = 0
                for i in from..<(from + count) {
                    let digit = Int(b[i]) - 48
                    guard digit >= 0, digit <= 9 else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
            // Days from civil (Howard Hinnant's algorithm), then from 2001-01-01 (day 11,323).
            let y = month <= 2 ? year - 1 : year
            let era = (y >= 0 ? y : y - 399) / 400
            let yoe = y - era * 400
            let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
            let days = era * 146_097 + doe - 719_468 - 11_323
            return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
        }
    }
}
