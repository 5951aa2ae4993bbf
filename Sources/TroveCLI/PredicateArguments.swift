import ArgumentParser

/// A command whose `--where` takes its `%@` values from `--arg`s.
protocol PredicateArgumentsCommand: ParsableCommand {
    /// The `--arg` values, in order.
    var predicateArguments: [String] { get set }
}

/// Takes the `--arg` values out of a command line before swift-argument-parser reads the rest.
///
/// The argument parser spends time quadratic in the number of times an option repeats (8,000
/// `--arg`s took 4.5 s); this scan is linear. It reads `--arg` as the option declares it
/// (`.unconditionalSingleValue`): the token after `--arg` is its value whatever it looks like,
/// so `--arg -5` and `--arg --x` work, and so does `--arg=VALUE`. After `--` every token is
/// positional, and an `--arg` without a value is left for the parser to report.
enum PredicateArguments {
    /// The command line without its `--arg`s, and their values in order; `arguments` unchanged
    /// and no values (`nil`) unless its first token names a command that takes `--arg`.
    static func split(_ arguments: [String]) -> (rest: [String], values: [String]?) {
        guard let name = arguments.first, TroveCommand.configuration.subcommands.contains(where: {
            $0 is any PredicateArgumentsCommand.Type && $0.configuration.commandName == name
        }) else { return (arguments, nil) }
        var rest: [String] = [], values: [String] = []
        rest.reserveCapacity(arguments.count)
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            if token == "--" {
                rest += arguments[index...]
                break
            } else if token == "--arg", index + 1 < arguments.count {
                values.append(arguments[index + 1])
                index += 2
                continue
            } else if token.hasPrefix("--arg=") {
                values.append(String(token.dropFirst("--arg=".count)))
            } else {
                rest.append(token)
            }
            index += 1
        }
        return (rest, values)
    }
}
