import Foundation
import Testing
import Trove
import TroveTesting

@Suite struct DeleteTests {
    let fixture: QueryFixture

    init() throws {
        fixture = try QueryFixture()
    }

    func count(_ entity: String) throws -> String {
        try fixture.run("count", entity).stdout
    }

    @Test func deletesTheMatchesInOneSaveApplyingDeleteRules() throws {
        let result = try fixture.run("delete", "Photographer", "--where", "id = %@", "--arg", "ann")
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "deleted 1 Photographer object and 1 related object by delete rules\n")
        #expect(try count("Photographer") == "1\n")
        #expect(try count("Photo") == "2\n", "ann's photo went with her (cascade)")
        #expect(try count("Tag") == "2\n", "tags are only unlinked (nullify)")

        let photos = try fixture.run("delete", "Photo", "--where", "views < %@", "--arg", "100")
        #expect(photos.stderr == "deleted 2 Photo objects\n")
        #expect(try fixture.run("query", "Photographer", "--fields", "id,photos.id", "--format", "ndjson").stdout
            == "{\"id\":\"bob\",\"photos.id\":[]}\n")
    }

    @Test func dryRunPrintsWhatWouldBeDeletedAndDeletesNothing() throws {
        let result = try fixture.run("delete", "Photographer", "--where", "name != nil", "--dry-run")
        #expect(result.status == 0)
        #expect(result.stdout == "Photographer/1\nPhoto/1\n")
        #expect(result.stderr == "would delete 1 Photographer object and 1 related object by delete rules (dry run: nothing deleted)\n")
        #expect(try count("Photographer") == "2\n")
        #expect(try count("Photo") == "3\n")
    }

    @Test func aDenyRuleStopsTheDeleteWithExitTwo() throws {
        let result = try fixture.run("delete", "Photographer", "--where", "TRUEPREDICATE")
        #expect(result.status == 2)
        #expect(result.stderr.contains("Photographer/2.studio: cannot delete: studio still holds Studio/1 and its delete rule is deny; remove them first"))
        #expect(result.stderr.hasSuffix("nothing was deleted\n"))
        #expect(try count("Photographer") == "2\n")
        #expect(try count("Photo") == "3\n")

        let dryRun = try fixture.run("delete", "Photographer", "--where", "id = 'bob'", "--dry-run")
        #expect(dryRun.status == 2)
        #expect(dryRun.stderr.contains("Photographer/2.studio: cannot delete: studio still holds Studio/1 and its delete rule is deny"))

        // Deleting the studio with its owner satisfies the rule.
        #expect(try fixture.run("delete", "Studio", "--where", "owner.id = 'bob'").status == 0)
        #expect(try fixture.run("delete", "Photographer", "--where", "id = 'bob'").stderr
            == "deleted 1 Photographer object and 1 related object by delete rules\n")
    }

    @Test func whereIsRequiredAndChecked() throws {
        let missing = try fixture.run("delete", "Photo")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("Missing expected argument '--where <PREDICATE>'"))
        let badKey = try fixture.run("delete", "Photo", "--where", "titel = 'x'")
        #expect(badKey.status == 1)
        #expect(badKey.stderr.contains("Photo has no key 'titel'; did you mean 'title'?"))
        let badArgument = try fixture.run("delete", "Photo", "--where", "taken < %@", "--arg", "yesterday")
        #expect(badArgument.status == 1)
        #expect(badArgument.stderr.contains("argument 1 (\"yesterday\") does not fit date attribute 'taken'"))
        #expect(try count("Photo") == "3\n")
        let store = try CLIRunner.run(["delete", fixture.dir.file("none.trove").path, "Photo", "--where", "TRUEPREDICATE"])
        #expect(store.status == 3)
    }
}
