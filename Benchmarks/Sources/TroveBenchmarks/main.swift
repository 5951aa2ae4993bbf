import Foundation
import GRDBSQLite

// trove-bench SCENARIO [--rows N] [--repetitions N] [--warmups N] [--scratch DIR] [--output FILE]
// trove-bench summarize RESULT.json... [--output FILE]
//
// Each scenario runs in its own process (Benchmarks/run starts one per scenario and row count),
// prints its table on stdout and writes its result as JSON; `summarize` gathers those files
// into one report.

let usage = """
    usage: trove-bench SCENARIO [--rows N] [--repetitions N] [--warmups N] [--scratch DIR] [--output FILE]
                       [--only VARIANT-TEXT] [--side SIDE-TEXT]
           trove-bench summarize RESULT.json... [--keep EARLIER-REPORT.json] [--output FILE]

    scenarios:
    \(Scenarios.all.map { "  \($0.name.padding(toLength: 8, withPad: " ", startingAt: 0)) \($0.summary) (default --rows \($0.defaultRows))" }.joined(separator: "\n"))

    Build in release (Benchmarks/run does). Times are medians of --repetitions runs (default 5)
    after --warmups unmeasured runs (default 1); Trove and the baseline alternate.
    """

func fail(_ message: String) -> Never {
    log("trove-bench: \(message)")
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, command != "--help", command != "-h" else {
    print(usage)
    exit(arguments.isEmpty ? 1 : 0)
}
arguments.removeFirst()

var options: [String: String] = [:]
var files: [String] = []
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    if argument.hasPrefix("--") {
        guard index + 1 < arguments.count else { fail("\(argument) needs a value") }
        options[String(argument.dropFirst(2))] = arguments[index + 1]
        index += 2
    } else {
        files.append(argument)
        index += 1
    }
}

@MainActor func integer(_ name: String, default value: Int) -> Int {
    guard let text = options[name] else { return value }
    guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number > 0 || (name == "warmups" && number == 0) else {
        fail("--\(name) takes a positive integer, not \(text)")
    }
    return number
}

func write<T: Encodable>(_ value: T, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try encoder.encode(value).write(to: url)
}

do {
    if command == "summarize" {
        let decoder = JSONDecoder()
        var results = try files.map { try decoder.decode(ScenarioResult.self, from: Data(contentsOf: URL(fileURLWithPath: $0))) }
        // --keep REPORT: the scenarios this run did not measure keep their earlier results.
        if let keep = options["keep"], let data = FileManager.default.contents(atPath: keep),
           let earlier = try? decoder.decode(Report.self, from: data) {
            let measured = Set(results.map(\.scenario))
            results = earlier.results.filter { !measured.contains($0.scenario) } + results
        }
        let report = Report(results: results, sqliteVersion: String(cString: sqlite3_libversion()))
        print("Trove benchmarks — \(report.date), \(report.machine.processors) cores, SQLite \(report.machine.sqliteVersion)\n")
        for result in results { print(Printer.table(result) + "\n") }
        print(Printer.growth(report))
        if let output = options["output"] { try write(report, to: output) }
    } else if command == ImportScenario.runCommand {
        // One import of the import scenario, in a process of its own (see ImportScenario).
        try ImportScenario.runChild(options)
    } else if let scenario = Scenarios.named(command) {
        let settings = Settings(
            rows: integer("rows", default: scenario.defaultRows),
            repetitions: integer("repetitions", default: 5),
            warmups: integer("warmups", default: 1),
            scratch: URL(fileURLWithPath: options["scratch"] ?? ".build-bench/scratch"),
            only: options["only"],
            side: options["side"])
        var result = try scenario.run(settings)
        result.date = Date().formatted(.iso8601)
        print(Printer.table(result) + "\n")
        if let output = options["output"] { try write(result, to: output) }
    } else {
        fail("unknown scenario '\(command)'\n\n\(usage)")
    }
} catch {
    fail("\(error)")
}
