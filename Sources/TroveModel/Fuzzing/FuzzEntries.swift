package import Foundation

/// What a fuzz entry made of one input: the libFuzzer targets in `Fuzz/` stop on `.broken`, and
/// the corpus replay test expects none.
package enum FuzzOutcome: Sendable, Equatable {
    /// The input was valid and every property checked held.
    case accepted
    /// The input was refused with the reader's typed error.
    case rejected
    /// A property that must hold for every input did not; the text says which.
    case broken(String)
}

/// The properties each fuzz target checks on arbitrary bytes, beyond "does not crash".
///
/// One function per target, shared by the libFuzzer executables (`Fuzz/Targets/`, built only with
/// `TROVE_FUZZ=1 swift build --sanitize fuzzer --sanitize address`) and by the test that replays
/// the committed corpus (`Fuzz/Corpus/`) on every `swift test`.
package enum FuzzEntries {
    /// Runs `entry` on libFuzzer's input; a broken property prints why and aborts the process,
    /// which is how libFuzzer learns of a finding. Only the fuzz targets call this.
    package static func run(_ entry: (Data) -> FuzzOutcome, on start: UnsafePointer<UInt8>?, count: Int) -> Int32 {
        let data = start.map { Data(bytes: $0, count: count) } ?? Data()
        if case .broken(let reason) = entry(data) {
            FileHandle.standardError.write(Data("broken property: \(reason)\n".utf8))
            abort()
        }
        return 0
    }

    /// The JSON parser: a parsed value serializes to text that parses back to the same value, and
    /// the validating pass (no values built) accepts exactly what the parser accepts.
    package static func jsonParser(_ data: Data) -> FuzzOutcome {
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: data)
        } catch {
            do {
                try JSONValue.validate(data)
                return .broken("the parser refused what validation accepted: \(error)")
            } catch {
                return .rejected
            }
        }
        do {
            try JSONValue.validate(data)
        } catch {
            return .broken("validation refused what the parser accepted: \(error)")
        }
        let text = parsed.serialized()
        do {
            let again = try JSONValue(parsing: text)
            return again == parsed ? .accepted : .broken("serialized text \(text) parses to a different value")
        } catch {
            return .broken("serialized text \(text) does not parse: \(error)")
        }
    }

    /// The model-file reader: a model that loads writes a model file that loads as an equal model.
    package static func modelFile(_ data: Data) -> FuzzOutcome {
        let model: Model
        do {
            model = try Model(fileData: data)
        } catch {
            return error.issues.isEmpty ? .broken("a model error without an issue") : .rejected
        }
        do {
            let again = try Model(fileData: model.fileData())
            return again == model ? .accepted : .broken("the written model file loads as a different model")
        } catch {
            return .broken("the written model file does not load: \(error)")
        }
    }
}
