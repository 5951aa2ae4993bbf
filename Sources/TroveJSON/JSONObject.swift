/// The members of a JSON object, by name: names compare by their UTF-8 bytes, as RFC 8259
/// (§8.3) compares them and as Trove compares all text.
///
/// `"e\u{301}"` (e and a combining accent) and `"\u{e9}"` (é precomposed) are two names, so an
/// object may hold both, each with its value; a Swift `Dictionary` keyed by `String` would take
/// them for one (Swift's `==` is canonical equivalence) and keep one value. A name repeated
/// byte for byte keeps its last value. The order of members is not kept.
///
/// ```swift
/// let record: JSONObject = ["id": 7, "title": "Dawn"]
/// let title = record["title"]              // .string("Dawn")
/// ```
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// A member name, compared and hashed by its bytes.
    private struct Name: Hashable {
        let string: String

        static func == (a: Name, b: Name) -> Bool { a.string.hasSameBytes(as: b.string) }

        func hash(into hasher: inout Hasher) {
            var string = string
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private var members: [Name: JSONValue]

    /// An empty object.
    public init() {
        members = [:]
    }

    /// The members of `dictionary` (whose keys are distinct already).
    public init(_ dictionary: [String: JSONValue]) {
        members = Dictionary(uniqueKeysWithValues: dictionary.map { (Name(string: $0.key), $0.value) })
    }

    /// The members of `pairs`; a name repeated byte for byte keeps its last value.
    public init(_ pairs: some Sequence<(key: String, value: JSONValue)>) {
        members = Dictionary(pairs.map { (Name(string: $0.key), $0.value) }, uniquingKeysWith: { _, last in last })
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }

    /// The value of the member whose name has the bytes of `name`; setting `nil` removes it.
    public subscript(name: String) -> JSONValue? {
        get { members[Name(string: name)] }
        set { members[Name(string: name)] = newValue }
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no member.
    public var isEmpty: Bool { members.isEmpty }

    /// The members' names, in no particular order.
    public var keys: [String] { members.keys.map(\.string) }

    public func makeIterator() -> some IteratorProtocol<(key: String, value: JSONValue)> {
        members.lazy.map { (key: $0.key.string, value: $0.value) }.makeIterator()
    }
}
