import Foundation
import Testing
import Trove
import TroveTesting
@testable import TroveCLI

/// `--arg` values as the command line gives them: negative numbers, values that look like
/// options, and thousands of them.
@Suite struct PredicateArgumentTests {
    let fixture: QueryFixture

    init() throws {
        fixture = try QueryFixture()
    }

    @Test(arguments: ["query", "count", "delete"])
    func aValueMayStartWithADash(command: String) throws {
        let extra = command == "query" ? ["--fields", "id", "--format", "csv"] : []
        let negative = try fixture.run(command, ["Photo", "--where", "views < %@", "--arg", "-5"] + extra)
        #expect(negative.status == 0, "\(negative.stderr)")
        let equals = try fixture.run(command, ["Photo", "--where", "views < %@ OR title == %@", "--arg=-1", "--arg", "--not-an-option"] + extra)
        #expect(equals.status == 0, "\(equals.stderr)")
        switch command {
        case "count":
            #expect(negative.stdout == "0\n")
            #expect(try fixture.run("count", "Photo", "--where", "views > %@", "--arg", "-5").stdout == "3\n")
            #expect(try fixture.run("count", "Photo", "--where", "price > %@", "--arg", "-0.5e1").stdout == "2\n")
        case "query":
            #expect(negative.stdout == "id\r\n")
        default:
            #expect(negative.stderr == "deleted 0 Photo objects\n")
        }
        #expect(try fixture.run("count", "Photo").stdout == "3\n")
    }

    @Test func argumentsAreTakenOutBeforeTheArgumentParserReadsTheRest() {
        let (rest, values) = PredicateArguments.split(
            ["count", "s", "Photo", "--arg", "-5", "--where", "a = %@", "--arg=-1", "--arg", "--arg", "--", "--arg", "x"])
        #expect(rest == ["count", "s", "Photo", "--where", "a = %@", "--", "--arg", "x"])
        #expect(values == ["-5", "-1", "--arg"])
        // An --arg without a value is left for the parser to report; other commands are not touched.
        #expect(PredicateArguments.split(["count", "s", "E", "--arg"]) == (["count", "s", "E", "--arg"], []))
        let other = PredicateArguments.split(["import", "s", "-", "--arg", "1"])
        #expect(other.rest == ["import", "s", "-", "--arg", "1"] && other.values == nil)
    }

    /// swift-argument-parser's work grows with the square of the options it reads (8,000
    /// `--arg`s took 4.5 s): what it reads stays the same however many `--arg`s there are.
    @Test func theArgumentParserReadsTheSameWhateverTheNumberOfArguments() {
        func parserInput(_ count: Int) -> [String] {
            PredicateArguments.split(["count", "s", "Photo", "--where", "id IN %@"] + (0..<count).flatMap { ["--arg", "v\($0)"] }).rest
        }
        #expect(parserInput(10) == parserInput(10_000))
        #expect(parserInput(10_000).count == 5)
    }

    @Test func eightThousandArgumentsSelectTheirObjects() throws {
        let count = 8_000
        let ids = ["p2"] + (0..<(count - 2)).map { "x\($0)" } + ["p3"]
        let format = "id IN {" + Array(repeating: "%@", count: count).joined(separator: ", ") + "}"
        let result = try fixture.run("query", ["Photo", "--where", format, "--fields", "id", "--format", "csv"] + ids.flatMap { ["--arg", $0] })
        #expect(result.status == 0, "\(result.stderr.prefix(300))")
        #expect(result.stdout == "id\r\np2\r\np3\r\n")
    }
}

extension QueryFixture {
    /// Runs `trove` with `arguments` after the store path's place.
    func run(_ command: String, _ arguments: [String]) throws -> CLIRunner.Result {
        try CLIRunner.run([command, storePath] + arguments)
    }
}
