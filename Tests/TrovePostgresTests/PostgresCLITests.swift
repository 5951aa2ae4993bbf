import Foundation
import Testing
import Trove
import TrovePostgres
import TroveTesting

/// Every `trove` command on a `postgres://` URL, run as a process against the test server.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresCLITests {
    let dir: TemporaryDirectory
    let modelPath: String

    init() throws {
        dir = try TemporaryDirectory()
        modelPath = try dir.modelFile(SampleModels.photos())
    }

    /// Three photos of two photographers, one record rejected (its views are not a number).
    static let photos = """
        [{"id": "p1", "title": "Dawn", "views": 10, "upload_date": "2011-07-23T22:30:40.5+02:00", "owner": {"id": "ann", "name": "Ann"}},
         {"id": "p2", "title": "Dusk", "views": "3", "owner": "ann"},
         {"id": "p3", "title": "Noon", "views": 7, "owner": {"id": "bob"}},
         {"id": "p4", "views": "lots"}]
        """

    func run(_ arguments: String..., input: String = "", environment: [String: String] = [:]) throws -> CLIRunner.Result {
        try CLIRunner.run(arguments, input: Data(input.utf8), in: dir.url, environment: environment)
    }

    @Test func everyCommandWorksOnAFreshDatabase() throws {
        let database = try TemporaryDatabase(created: false)
        let url = database.url()
        let created = try run("init", url, "--model", modelPath)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr == "created \(url): 2 entities, model hash \(try SampleModels.photos().versionHash)\n", "the database is made too")
        let again = try run("init", url, "--model", modelPath)
        #expect(again.status == 3)
        #expect(again.stderr == "trove: \(database.location) already holds a Trove store; drop the database or choose another\n")

        try Data(Self.photos.utf8).write(to: dir.file("photos.json"))
        let imported = try run("import", url, "photos.json", "--entity", "Photo")
        #expect(imported.status == 2, "one record rejected")
        #expect(imported.stderr.hasPrefix("imported photos.json into Photo: 4 records read, 3 imported, 1 rejected\n"), "\(imported.stderr)")
        #expect(try run("count", url, "Photo").stdout == "3\n")
        #expect(try run("count", url, "Photo", "--where", "views > %@", "--arg", "5").stdout == "2\n")
        let query = try run("query", url, "Photo", "--sort", "-views", "--fields", "id,views,whoTook.name", "--format", "ndjson")
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.stdout == """
            {"id":"p1","views":10,"whoTook.name":"Ann"}
            {"id":"p3","views":7,"whoTook.name":null}
            {"id":"p2","views":3,"whoTook.name":"Ann"}

            """)
        let export = try run("export", url, "Photographer", "--sort", "id", "--format", "ndjson")
        #expect(export.stdout == #"{"id":"ann","name":"Ann","photos":["p1","p2"]}"# + "\n" + #"{"id":"bob","name":null,"photos":["p3"]}"# + "\n",
                "\(export.stderr)")

        let dryDelete = try run("delete", url, "Photographer", "--where", "id = %@", "--arg", "ann", "--dry-run")
        #expect(dryDelete.stderr == "would delete 1 Photographer object and 2 related objects by delete rules (dry run: nothing deleted)\n")
        let deleted = try run("delete", url, "Photographer", "--where", "id = %@", "--arg", "ann")
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stderr == "deleted 1 Photographer object and 2 related objects by delete rules\n")
        #expect(try run("count", url, "Photo").stdout == "1\n", "the cascade reached ann's photos")

        let inspect = try run("inspect", url)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.hasPrefix("store:         \(url)\nformat:        "))
        #expect(inspect.stdout.contains("\nPostgreSQL:    1"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("Photo — 1 rows"))
        #expect(inspect.stdout.contains("model history (oldest first):\n  1. \(try SampleModels.photos().versionHash)  "))
        let json = try JSONValue(parsing: try run("inspect", url, "--format", "json").stdout).objectValue ?? [:]
        #expect(json["postgresqlVersion"]?.stringValue?.isEmpty == false)
        #expect(json["sqliteVersion"] == nil)

        let graph = try run("model", "graph", url, "--format", "mermaid")
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdout.contains("Photographer"))
    }

    /// `trove migrate` on a database: the dry run prints the plan and changes nothing, the real
    /// run migrates and keeps the old tables in a backup schema, `inspect` shows the history,
    /// and a second run has nothing to do.
    @Test func migrateRunsOnADatabase() throws {
        let database = try TemporaryDatabase(created: false)
        let url = database.url()
        #expect(try run("init", url, "--model", modelPath).status == 0)
        try Data(Self.photos.utf8).write(to: dir.file("photos.json"))
        #expect(try run("import", url, "photos.json", "--entity", "Photo").status == 2)
        #expect(try run("import", url, "-", "--entity", "Photo", input: #"[{"id": "p5", "views": 1}]"#).status == 0, "a photo without a title")
        var entities = try SampleModels.photos().entities.filter { $0.parent == nil }
        entities[1].attributes[1] = Attribute("title", .string, optional: false, default: "untitled", max: 80)
        let v2 = dir.file("v2.json")
        try Model(keyStyle: .snakeCase, entities: entities).fileData().write(to: v2)

        let dry = try run("migrate", url, "--model", v2.path, "--dry-run")
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Photo.title: optional → required, 1 nil value set to the default \"untitled\""), "\(dry.stdout)")
        #expect(try run("count", url, "Photo", "--where", "title == nil").stdout == "1\n", "the dry run changed nothing")

        let migrate = try run("migrate", url, "--model", v2.path)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let backup = "trove_backup_" + (try SampleModels.photos().versionHash.prefix(16).lowercased())
        #expect(migrate.stderr.hasSuffix("the old tables are kept in the schema \(backup)\n"), "\(migrate.stderr)")
        let query = try run("query", url, "Photo", "--fields", "id,title", "--sort", "id", "--format", "ndjson")
        #expect(query.stdout == """
            {"id":"p1","title":"Dawn"}
            {"id":"p2","title":"Dusk"}
            {"id":"p3","title":"Noon"}
            {"id":"p5","title":"untitled"}

            """, "\(query.stderr)")
        #expect(try run("inspect", url).stdout.contains("migrated, 2 steps, 1 rows rewritten"))
        let again = try run("migrate", url, "--model", v2.path, "--no-backup")
        #expect(again.status == 0 && again.stderr.contains("nothing to do"), "\(again.stderr)")

        // bob has no name: a real run is refused as a dry run is, with the plan on stdout.
        entities[0].attributes[1] = Attribute("name", .string, optional: false)
        let v3 = dir.file("v3.json")
        try Model(keyStyle: .snakeCase, entities: entities).fileData().write(to: v3)
        let blocked = try run("migrate", url, "--model", v3.path)
        #expect(blocked.status == 2)
        #expect(blocked.stdout.contains("blocked by 1 change:\n  entities[0].attributes[1]: optional → required, 1 row is nil; give a default"),
                "\(blocked.stdout)")
        #expect(blocked.stderr.contains("cannot be migrated"), "\(blocked.stderr)")
        #expect(try run("migrate", url, "--model", v2.path).stderr.contains("nothing to do"), "the database kept v2")
    }

    /// A dry run on a database reports what the real run then does — summary, rejects and exit
    /// code — over several batches that update what the database held, and leaves the database
    /// as it was, with no scratch schema behind.
    @Test func aDryRunImportReportsWhatARealRunDoesAndLeavesTheDatabaseAsItWas() throws {
        let database = try TemporaryDatabase(created: false)
        let url = database.url()
        #expect(try run("init", url, "--model", modelPath).status == 0)
        let seed = (0..<20).map { #"{"id": "p\#($0)", "title": "old \#($0)", "views": \#($0), "owner": {"id": "o\#($0 % 3)", "name": "Old"}}"# }
        #expect(try run("import", url, "-", "--entity", "Photo", input: "[" + seed.joined(separator: ",") + "]").status == 0)
        // Updates of seeded photos and new ones, new and seeded owners, and rejected records.
        let payload = (10..<50).map { index in
            index % 9 == 0 ? #"{"id": "p\#(index)", "views": "lots"}"#
                : #"{"id": "p\#(index)", "title": "new \#(index)", "views": \#(index * 2), "owner": {"id": "o\#(index % 5)", "name": "New"}}"#
        }
        try Data(("[" + payload.joined(separator: ",") + "]").utf8).write(to: dir.file("payload.json"))
        func export() throws -> String {
            try run("export", url, "Photo", "--sort", "id", "--format", "ndjson", "--relationships", "nested").stdout
        }
        let before = try export()
        let store = try PostgresStore(location: database.location)
        let token = try store.changeToken()

        let dry = try run("import", url, "payload.json", "--entity", "Photo", "--batch-size", "7", "--rejects", "dry.ndjson", "--dry-run")
        #expect(dry.status == 2, "\(dry.stderr)")
        #expect(try export() == before)
        #expect(try !store.hasChanged(since: token))
        let scratch = try store.run("listing schemas") {
            try store.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'trove_scratch_%'").rows.count
        }
        #expect(scratch == 0)
        #expect(try store.metadata().keys.allSatisfy { !$0.hasPrefix(ImportCheckpoint.metadataKey(for: "")) }, "no checkpoint left")

        let real = try run("import", url, "payload.json", "--entity", "Photo", "--batch-size", "7", "--rejects", "real.ndjson")
        #expect(real.status == 2)
        #expect(dry.stderr.replacingOccurrences(of: "dry.ndjson", with: "real.ndjson") == "dry run, nothing written: " + real.stderr)
        #expect(try Data(contentsOf: dir.file("dry.ndjson")) == Data(contentsOf: dir.file("real.ndjson")))
        #expect(try export() != before)
    }

    /// A database that exists and holds nothing gets the tables (its owner needs no right to
    /// create databases).
    @Test func initOnAnEmptyDatabaseMakesTheStoreThere() throws {
        let database = try TemporaryDatabase()
        let created = try run("init", database.url(), "--model", modelPath)
        #expect(created.status == 0, "\(created.stderr)")
        let store = try PostgresStore(location: database.location)
        #expect(store.model.versionHash == (try SampleModels.photos().versionHash))
    }

    /// The same input imported into an SQLite file and a PostgreSQL database exports as the
    /// same records, with the same summary.
    @Test func anImportLandsAsOnSQLite() throws {
        let database = try TemporaryDatabase()
        let url = database.url()
        try Data(Self.photos.utf8).write(to: dir.file("photos.json"))
        var exports: [String] = []
        var summaries: [String] = []
        for store in [url, "photos.trove"] {
            #expect(try run("init", store, "--model", modelPath).status == 0)
            let imported = try run("import", store, "photos.json", "--entity", "Photo", "--batch-size", "2")
            summaries.append(imported.stderr)
            let export = try run("export", store, "Photo", "--sort", "id", "--format", "ndjson", "--relationships", "nested")
            #expect(export.status == 0, "\(export.stderr)")
            exports.append(export.stdout)
        }
        #expect(exports[0] == exports[1])
        #expect(exports[0].split(separator: "\n").count == 3)
        #expect(summaries[0] == summaries[1])
    }

    @Test func anInterruptedImportResumesFromItsCheckpoint() throws {
        let database = try TemporaryDatabase()
        let url = database.url()
        #expect(try run("init", url, "--model", modelPath).status == 0)
        let lines = (1...7).map { #"{"id": "\#($0)", "views": \#($0 == 6 ? "\"many\"" : "\($0)")}"# }
        let input = lines.joined(separator: "\n") + "\n"
        let first = try run("import", url, "-", "--entity", "Photo", "--ndjson", "--strict", "--batch-size", "2", input: input)
        #expect(first.status == 2)
        #expect(try run("count", url, "Photo").stdout == "4\n")
        let inspect = try run("inspect", url)
        #expect(inspect.stdout.contains("import checkpoints (an interrupted import resumes here when run again):\n  Photo: 4 records (95 bytes) of standard input imported, ndjson, strict, saved "))

        let again = try run("import", url, "-", "--entity", "Photo", "--ndjson", "--strict", "--batch-size", "2", input: input)
        #expect(again.status == 2)
        #expect(again.stderr.hasPrefix("trove import standard input: resuming an interrupted import after record 4 (byte 95)\n"), "\(again.stderr)")
        #expect(again.stderr.contains("strict import stopped at record 5 at views"))

        let restarted = try run("import", url, "-", "--entity", "Photo", "--ndjson", "--restart", input: input)
        #expect(restarted.status == 2)
        #expect(restarted.stderr.hasPrefix("imported standard input into Photo: 7 records read, 6 imported, 1 rejected\n"))
        #expect(try run("count", url, "Photo").stdout == "6\n")
        #expect(!(try run("inspect", url).stdout.contains("checkpoint")), "the last chunk removed it")
    }

    // MARK: Bad locations

    /// Unknown host, closed port, a port that is not a number, another scheme, a missing
    /// database: exit 3, saying what is wrong, never showing the password.
    @Test(arguments: [
        ("postgres://trove:pw-SECRET-1@no-such-host.invalid:5432/photos", "could not connect to postgres://trove@no-such-host.invalid:5432/"),
        ("postgres://trove:pw-SECRET-1@127.0.0.1:1/photos", "could not connect to postgres://trove@127.0.0.1:1/"),
        ("postgres://trove:pw-SECRET-1@127.0.0.1:port/photos", "is not a PostgreSQL URL"),
        ("postgresql://trove:pw-SECRET-1@127.0.0.1:70000/photos", "the port '70000' of postgresql://trove:***@127.0.0.1:70000/photos is not a port number"),
        ("mysql://trove:pw-SECRET-1@127.0.0.1/photos", "'mysql://trove:***@127.0.0.1/photos' is a mysql: URL; STORE is a file path or a postgres:// (postgresql://) URL"),
    ])
    func aBadLocationExits3WithoutThePassword(url: String, message: String) throws {
        for arguments in [["count", url, "Photo"], ["inspect", url], ["init", url, "--model", modelPath]] {
            let result = try CLIRunner.run(arguments, in: dir.url)
            #expect(result.status == 3, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("SECRET"), "\(arguments)")
        }
    }

    @Test func aMissingDatabaseExits3SayingHowToCreateIt() throws {
        let missing = try TemporaryDatabase(created: false)
        let result = try run("count", missing.url(password: "pw-SECRET-2"), "Photo")
        #expect(result.status == 3)
        #expect(result.stderr == "trove: the server has no database \(missing.location.database) (\(missing.location)); create it: trove init \(missing.location) --model MODEL.json, or PostgresStore.createDatabase(at:)\n")
    }

    /// A password given in the URL or in `PGPASSWORD` appears in no output of any command,
    /// whether it succeeds or fails, nor in `--help`.
    @Test func aPasswordIsNeverPrinted() throws {
        let database = try TemporaryDatabase()
        let secret = "pw-SECRET-3"
        let url = database.url(password: secret)
        try Data(Self.photos.utf8).write(to: dir.file("photos.json"))
        let runs: [[String]] = [
            ["init", url, "--model", modelPath], ["init", url, "--model", modelPath],
            ["import", url, "photos.json", "--entity", "Photo", "--report", "report.json", "--rejects", "rejects.ndjson"],
            ["import", url, "photos.json", "--entity", "Nothing"], ["import", url, "photos.json", "--entity", "Photo", "--dry-run"],
            ["inspect", url], ["inspect", url, "--format", "json"], ["count", url, "Photo"], ["count", url, "Photo", "--where", "views >"],
            ["query", url, "Photo"], ["query", url, "Photograph"], ["export", url, "Photo"], ["delete", url, "Photo", "--where", "views > 100"],
            ["migrate", url, "--model", modelPath], ["model", "graph", url], ["inspect", url, url], ["inspect", "--help"],
        ]
        var printed = ""
        for arguments in runs {
            for environment in [[:], ["PGPASSWORD": secret]] {
                let result = try CLIRunner.run(arguments, in: dir.url, environment: environment)
                printed += result.stdout + result.stderr
                #expect(!(result.stdout + result.stderr).contains(secret), "\(arguments): \(result.stdout)\(result.stderr)")
            }
        }
        let files = try ["report.json", "rejects.ndjson"].map { try String(contentsOf: dir.file($0), encoding: .utf8) }
        #expect(!files.joined().contains(secret))
        #expect(printed.contains("postgres://\(database.location.user):***@"), "the argument parser's echo of the URL is hidden")
        #expect(printed.contains("Unexpected argument"))
    }
}

/// `Container` and `Document` handed a PostgreSQL location: the one way that works, and a
/// clear refusal from the SQLite entry points.
@Suite(.enabled(if: PostgresServer.isConfigured, PostgresServer.skipMessage))
struct PostgresContainerTests {
    @Test func aContainerOpensAPostgresLocationAsItOpensAFile() throws {
        let database = try TemporaryDatabase()
        let container = try Container(model: SampleModels.photos(), location: database.location)
        let context = container.newBackgroundContext()
        try context.insert("Photo").setValue("p1", forKey: "id")
        try context.save()
        let again = try Container(model: SampleModels.photos(), location: PostgresLocation(database.url(password: "ignored")))
        #expect(try again.newBackgroundContext().fetchCount("Photo") == 1)
        #expect(again.store is PostgresStore)
    }

    @Test func aContainerOnAMissingDatabaseSaysHowToCreateIt() throws {
        let missing = try TemporaryDatabase(created: false)
        let error = try #require(throws: StoreError.self) {
            try Container(model: SampleModels.photos(), location: missing.location)
        }
        #expect(error.code == .notFound)
        #expect(error.message.contains("PostgresStore.createDatabase(at:)"))
    }
}

/// No server needed: how a location reads and hides its password.
struct PostgresLocationTextTests {
    @Test(arguments: [
        ("postgres://ann:s3cret@db:5432/photos", "postgres://ann:***@db:5432/photos"),
        ("postgres://ann:s3@cr/et@db/photos", "postgres://ann:***@db/photos"),
        ("postgres://ann@db/photos", "postgres://ann@db/photos"),
        ("postgres:///photos?host=/tmp", "postgres:///photos?host=/tmp"),
    ])
    func aRedactedURLShowsNoPassword(url: String, redacted: String) {
        #expect(PostgresLocation.redacted(url) == redacted)
    }

    @Test func theSQLiteEntryPointsRefuseAPostgresURLNamingTheFix() throws {
        let url = try #require(URL(string: "postgres://ann:s3cret@db:5432/photos"))
        let error = try #require(throws: StoreError.self) { try Container(model: SampleModels.photos(), url: url) }
        #expect(error.code == .notFound)
        #expect(error.message.contains("import TrovePostgres and use Container(model:location:classes:hooks:)"))
        #expect(!error.description.contains("s3cret"))
    }

    @MainActor @Test func aDocumentIsAFileAndRefusesAPostgresURL() throws {
        let url = try #require(URL(string: "postgresql://ann:s3cret@db/photos"))
        let error = try #require(throws: DocumentError.self) { try Document(url: url, model: SampleModels.photos()) }
        #expect(error.code == .notADocument)
        #expect(error.message.contains("a PostgreSQL database is none of these"))
        #expect(!error.description.contains("s3cret"))
    }
}
