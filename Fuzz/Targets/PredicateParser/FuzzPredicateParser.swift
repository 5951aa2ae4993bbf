// libFuzzer target (Fuzz/README.md), built only with TROVE_FUZZ=1 and `--sanitize fuzzer`.
import TroveImport
import TroveModel
import TrovePredicate

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    FuzzEntries.run(FuzzEntries.predicateParser, on: start, count: count)
}
